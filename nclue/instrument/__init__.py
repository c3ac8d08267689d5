"""Construction of a page-grounded n-Clue instrument from locally rebuilt page text.

One module per concept (n-Clue paper, sec. 3.2 and supplement 1.1):

- :mod:`.inputs`: reading a build folder (documents, page text, outlines);
- :mod:`.sections`: outline titles normalized into canonical section names (alias table);
- :mod:`.entities`: the entity-phrase vocabulary (shape rule, document frequency) and matching;
- :mod:`.inventory`: the condition inventory P0(d, c);
- :mod:`.gates`: clue counts, the single-page gate and the distinct-page (Hall) gate;
- :mod:`.enumeration`: rare conjunctions of common conditions, seeded selection;
- :mod:`.construction`: the whole construction, from inputs to release records;
- :mod:`.release_writer` and :mod:`.stats`: release files and the Table 1 analogue;
- :mod:`.verify`: an independent second code path that re-derives every label;
- :mod:`.quote_audit`: a mechanical, quote-backed audit of a stratified sample.
"""
