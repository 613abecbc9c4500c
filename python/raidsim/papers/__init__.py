"""The papers raidsim reproduces: their tables and figures run again, raidsim's numbers beside the published.

Five papers (``papers.toml``) are reproduced as data and code. The data are
the packaged study files (``experiments/NAME.toml``, :mod:`raidsim.papers.packaged`):
what each run sets up, every choice the paper leaves open, and the numbers
it publishes. The code is one module per paper and study
(:mod:`~raidsim.papers.reproduce` for the stripe-unit paper's and the
erasure-code paper's counting tables, :mod:`~raidsim.papers.striping`,
:mod:`~raidsim.papers.hdd_stripe_unit`, :mod:`~raidsim.papers.cr5m`,
:mod:`~raidsim.papers.rais`, :mod:`~raidsim.papers.erasure_code_tables`,
:mod:`~raidsim.papers.erasure_code_study`), each running studies
(:mod:`raidsim.study`) or counting mode and turning the results into rows,
raidsim's value beside the published one; those that set many published
numbers beside their rows do it on one base that leaves none out
(:mod:`raidsim.papers.rows`).

The catalog (:mod:`raidsim.papers.catalog`) says which study file
reproduces which tables and figures and how each row is judged (pass, gap,
not run); :mod:`raidsim.papers.reproduce_all` runs every entry into one
report, an index of the verdicts with a page per entry
(:mod:`raidsim.papers.verdict_pages`). ``raidsim reproduce NAME`` is the
command line of all of it.
"""
