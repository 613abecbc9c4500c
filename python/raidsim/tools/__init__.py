"""Tools that answer a user's question about their own array with the simulator.

:mod:`raidsim.tools.advise` (``raidsim advise``) runs a workload on every
level, member count and stripe unit of one drive as a study and ranks the
configurations on response time, wear, capacity and cost, Pareto-optimal
first. :mod:`raidsim.tools.endurance` (``raidsim endurance``) turns a run's
erases into the years until each member's flash is worn out. They stand on
the core and the study layer, beside the papers' reproductions, and neither
knows the other.
"""
