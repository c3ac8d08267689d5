"""Render the packet as ONE self-contained HTML file (all text, style and script inline).

n-Clue paper (arXiv 2607.24165), supplement sec. 10.2.1 and Figures S3-S4: the evaluator sees
the complete request, the necessary-evidence rule, each condition's rubric and all its page
contexts together; "related" and "uncertain" are not response options.

The page loads nothing: a Content-Security-Policy forbids every network fetch, and the script,
the style and the packet content (an ``application/json`` block, :func:`.packet.embed_json`)
are inline. The script and the style are ``assets/packet.js`` and ``assets/packet.css`` of this
package; page text is inserted with ``textContent`` only.
"""

from pathlib import Path

from ..errors import NclueError
from .packet import DATA_ID, Packet, embed_json

ASSETS = Path(__file__).resolve().parent / "assets"
CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
       "connect-src 'none'; form-action 'none'; base-uri 'none'")

TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="nclue-packet-sha256" content="{sha}">
<title>{title}</title>
<style>
{css}</style>
</head>
<body>
<header>
<div class="top"><h1 id="title">{title}</h1><span id="packet" class="packet"></span></div>
<div class="toolbar">
<label>Evaluator id <input id="evaluator" type="text" autocomplete="off" spellcheck="false"></label>
<button id="new-evaluator" type="button" hidden>New evaluator</button>
<button id="export" type="button">Export JSON</button>
<label class="file">Resume from an exported file <input id="resume" type="file" accept=".json,application/json"></label>
<span id="progress"></span>
<span id="saved" class="saved"></span>
</div>
<div id="strip" class="strip" aria-label="Items"></div>
<div id="message" class="message" role="status"></div>
<div id="who" class="who" hidden></div>
</header>
<main>
<details id="instructions-box" open><summary>Instructions</summary><div id="instructions"></div></details>
<details id="help"><summary>Keyboard</summary><p>Outside text fields: &larr; or k previous item, &rarr; or j next item;
anywhere: Ctrl+Enter accepts the item; ? opens this help. Previous and Next always work; only Accept checks the item.</p></details>
<noscript><p class="errors">This packet needs JavaScript (it runs only inside this file and loads nothing).</p></noscript>
<div class="item-head"><span id="position"></span></div>
<p class="request-label">Request</p>
<p id="request" class="request"></p>
<div id="clarity"></div>
<p id="asked" class="asked"></p>
<div id="item-status" class="item-status"></div>
<div id="errors" class="errors" role="alert"></div>
<div id="conditions"></div>
</main>
<footer class="nav">
<button id="prev" type="button">&#9664; Previous</button>
<button id="accept" type="button" class="primary">Accept item &#10003;</button>
<button id="next" type="button">Next &#9654;</button>
</footer>
<script type="application/json" id="{data_id}">{data}</script>
<script>
{js}</script>
</body>
</html>
"""


def _escape(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def render_html(packet: Packet) -> str:
    """The packet's HTML text (deterministic: the same packet gives the same bytes)."""
    js = (ASSETS / "packet.js").read_text(encoding="utf-8")
    css = (ASSETS / "packet.css").read_text(encoding="utf-8")
    for name, text in (("packet.js", js), ("packet.css", css)):
        if "</script" in text.lower() or "</style" in text.lower():
            raise NclueError(f"{name} must not contain a closing script or style tag")
    return TEMPLATE.format(csp=CSP, sha=packet.sha256, title=_escape(f"{packet.title} - {packet.packet_id}"),
                           css=css, js=js, data=embed_json(packet), data_id=DATA_ID)
