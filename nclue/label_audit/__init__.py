"""The offline label audit (n-Clue paper, arXiv 2607.24165: sec. 3.2, sec. 5, supplement sec. 10,
Tables S7-S14), one module per concept; the CLI is ``nclue audit`` (nclue/commands/audit.py) and
docs/AUDIT.md walks through it.

Data flow (files -> records -> tables; nothing ever modifies a release's qrels):

- :mod:`.sampling`: stratified, seeded sample of judged pairs (Table S7 shape);
- :mod:`.rubric`: each condition's requirement, "counts" / "does not count" criteria and note,
  from the release's own condition definitions;
- :mod:`.pagetext` and :mod:`.pools`: page text and the condition-specific page contexts (three
  in the first pass, nine in adjudication and the challenge; routes hidden);
- :mod:`.spec`: the blinded packet spec and the separate administrator key;
- :mod:`.packet` and :mod:`.packet_html`: the packet content (named by its sha256) and its one
  self-contained HTML file (script and style in ``assets/``);
- :mod:`.textnorm`: quote normalization shared with the packet's script;
- :mod:`.exports`: re-validation of evaluator exports against the packet;
- :mod:`.record`: the judged record of a stage (key + validated answers, no page text);
- :mod:`.agreement_stats`: Tables S8, S9, S11 and adjudication agreement (via
  :mod:`nclue.agreement`);
- :mod:`.policy`: the pre-specified, evidence-asymmetric repair policy;
- :mod:`.adjudication`: the expanded-page stage (and the challenge's tie-break stage) drawn from
  a first-pass record;
- :mod:`.pool_check`: the page-pool composition of a stage (Table S10) and the held-out recall
  check of the expanded pool;
- :mod:`.review`: the administrative review of the non-unanimous polled conditions (sec. 10.4);
- :mod:`.repair` and :mod:`.transitions`: repair files, the repaired label version, gate
  re-checks, transition tables (Tables S12-S13), the conditions left undecided; identical exports
  are one response stream in every stage;
- :mod:`.impact`: every frozen run before and after a repair, a named contrast with its paired
  p-values (Table S14);
- :mod:`.challenge`: the retrieval-conditioned challenge of a frozen contrast (sec. 10.5);
- :mod:`.report_section`: the report section on label validation (status and the mechanical
  quote audit), a pure function returning tables and paragraphs;
- :mod:`.verify`: re-checks of the repairs a release ships.
"""
