"""The release report: ``report.json`` parsed into typed specs (:mod:`.spec`), tables and figures
built once (:mod:`.assemble`), shown as a small document (:mod:`.document`) rendered to Markdown
(:mod:`.markdown`), HTML (:mod:`.html`) and JSON (:mod:`.jsonform`)."""
