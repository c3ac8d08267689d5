/* nclue label-audit packet: the evaluator's interface (offline, no network, no dependencies).
 *
 * n-Clue paper (arXiv 2607.24165), supplement sec. 10.2.1: autosave, import/resume, keyboard
 * navigation, always-live Previous/Next, final JSON export; before accepting an item the page
 * checks that every condition has a binary answer, every positive answer has at least one
 * in-pool page and a nontrivial quote, every quote is a normalized substring of its selected
 * page, and every negative answer has no page or quote.
 *
 * Quote normalization mirrors nclue/label_audit/textnorm.py; its tables come from the packet
 * (packet.quote_rules). Offsets are code points of the page text, end exclusive.
 */
(function () {
  "use strict";

  var DATA = JSON.parse(document.getElementById("nclue-packet-data").textContent);
  var P = DATA.packet;
  var SHA = DATA.sha256;
  var STORE_KEY = "nclue-audit:" + SHA;
  var RULES = P.quote_rules;
  var WS = new Set(Array.from(RULES.whitespace));
  var PUNCT = new Set(Array.from(RULES.punctuation));
  var TYPO = RULES.typographic;
  var ITEMS = P.items;

  /* ------------------------------------------------------------------ normalization */

  function pieces(ch) {
    var out = "";
    var n = ch.normalize("NFKC");
    for (var c of n) {
      out += Object.prototype.hasOwnProperty.call(TYPO, c) ? TYPO[c] : c;
    }
    return out;
  }

  /* normalized string, and for every UTF-16 unit of it the raw code-point index */
  function normalizeWithMap(text) {
    var out = [];
    var map = [];
    var pending = -1;
    var index = 0;
    for (var raw of text) {
      for (var ch of pieces(raw)) {
        if (WS.has(ch)) {
          if (pending < 0) { pending = index; }
          continue;
        }
        if (pending >= 0 && out.length) { out.push(" "); map.push(pending); }
        pending = -1;
        out.push(ch);
        for (var u = 0; u < ch.length; u++) { map.push(index); }
      }
      index++;
    }
    return { s: out.join(""), map: map };
  }

  function normalize(text) { return normalizeWithMap(text).s; }

  function nontrivial(quote) {
    var norm = Array.from(normalize(quote));
    if (norm.length < RULES.min_chars) { return false; }
    return norm.some(function (ch) { return ch !== " " && !PUNCT.has(ch); });
  }

  var cpCache = {};
  function codePoints(doc, page) {
    var key = doc + "/" + page;
    if (!cpCache[key]) { cpCache[key] = Array.from(pageText(doc, page)); }
    return cpCache[key];
  }

  function locate(text, quote) {
    var needle = normalize(quote);
    if (!needle) { return null; }
    var hay = normalizeWithMap(text);
    var pos = hay.s.indexOf(needle);
    if (pos < 0) { return null; }
    return { start: hay.map[pos], end: hay.map[pos + needle.length - 1] + 1 };
  }

  /* ------------------------------------------------------------------ sha256 (FIPS 180-4) */

  var K = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2];

  function rotr(x, n) { return (x >>> n) | (x << (32 - n)); }

  function sha256hex(str) {
    var bytes = new TextEncoder().encode(str);
    var len = bytes.length;
    var total = ((len + 9 + 63) >> 6) << 6;
    var m = new Uint8Array(total);
    m.set(bytes);
    m[len] = 0x80;
    var dv = new DataView(m.buffer);
    dv.setUint32(total - 8, Math.floor(len / 0x20000000));
    dv.setUint32(total - 4, (len << 3) >>> 0);
    var h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    var w = new Array(64);
    for (var off = 0; off < total; off += 64) {
      var i;
      for (i = 0; i < 16; i++) { w[i] = dv.getUint32(off + 4 * i); }
      for (i = 16; i < 64; i++) {
        var s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
        var s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
      }
      var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
      for (i = 0; i < 64; i++) {
        var S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
        var ch = (e & f) ^ (~e & g);
        var t1 = (k + S1 + ch + K[i] + w[i]) >>> 0;
        var S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
        var maj = (a & b) ^ (a & c) ^ (b & c);
        var t2 = (S0 + maj) >>> 0;
        k = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
      }
      h[0] = (h[0] + a) >>> 0; h[1] = (h[1] + b) >>> 0; h[2] = (h[2] + c) >>> 0; h[3] = (h[3] + d) >>> 0;
      h[4] = (h[4] + e) >>> 0; h[5] = (h[5] + f) >>> 0; h[6] = (h[6] + g) >>> 0; h[7] = (h[7] + k) >>> 0;
    }
    return h.map(function (x) { return ("00000000" + x.toString(16)).slice(-8); }).join("");
  }

  /* ------------------------------------------------------------------ state */

  function now() { return new Date().toISOString(); }
  function pageText(doc, page) { return P.pages[doc][String(page)].text; }

  function emptyItemState(item) {
    var conditions = {};
    item.conditions.forEach(function (c) {
      var pages = {};
      c.pages.forEach(function (n) { pages[n] = { checked: false, quote: "" }; });
      conditions[c.index] = { answer: null, pages: pages };
    });
    return { accepted: false, accepted_at: null, updated_at: null, clear: null, conditions: conditions };
  }

  function freshState() {
    var items = {};
    ITEMS.forEach(function (it) { items[it.item] = emptyItemState(it); });
    return { format: "nclue-audit-state", packet_sha256: SHA, evaluator_id: "", started_at: now(),
             current: 0, rev: 0, items: items };
  }

  /* Saved work is keyed by packet AND evaluator: PREFIX:evaluator:<id>; work begun before an id
   * is entered is a draft (PREFIX:draft); PREFIX:current names the evaluator last working here.
   * Every saved state carries a revision number: a tab writes only over the revision it last
   * read, and adopts a newer one written by another tab of this packet (storage event). */
  var PREFIX = "nclue-audit:" + SHA;
  var CURRENT_KEY = PREFIX + ":current";
  function storeKey(id) { return id ? PREFIX + ":evaluator:" + id : PREFIX + ":draft"; }

  var state = freshState();
  var storageOk = true;
  var lastSaved = null;

  function readStored(key) {
    var text = null;
    try { text = localStorage.getItem(key); } catch (err) { storageOk = false; return null; }
    if (!text) { return null; }
    var saved;
    try { saved = JSON.parse(text); } catch (err) { return null; }
    if (!saved || saved.format !== "nclue-audit-state" || saved.packet_sha256 !== SHA) { return null; }
    return saved;
  }

  function writeStored(key, value) {
    try {
      localStorage.setItem(key, JSON.stringify(value));
      lastSaved = now();
      storageOk = true;
    } catch (err) {
      storageOk = false;
    }
    renderSaveStatus();
  }

  /* a saved state re-validated against the packet (unknown items, pages or answers dropped) */
  function stateFrom(saved) {
    var fresh = freshState();
    ITEMS.forEach(function (it) {
      var got = saved.items && saved.items[it.item];
      if (!got) { return; }
      var target = fresh.items[it.item];
      it.conditions.forEach(function (c) {
        var gc = got.conditions && got.conditions[c.index];
        if (!gc) { return; }
        var tc = target.conditions[c.index];
        tc.answer = gc.answer === "yes" || gc.answer === "no" ? gc.answer : null;
        c.pages.forEach(function (n) {
          var gp = gc.pages && gc.pages[n];
          if (gp) { tc.pages[n] = { checked: !!gp.checked, quote: String(gp.quote || "") }; }
        });
      });
      target.clear = got.clear === true || got.clear === false ? got.clear : null;
      target.updated_at = got.updated_at || null;
      target.accepted_at = got.accepted_at || null;
      target.accepted = !!got.accepted && validateItem(it, target).length === 0;
    });
    fresh.evaluator_id = ID_RE.test(String(saved.evaluator_id || "")) ? String(saved.evaluator_id) : "";
    fresh.started_at = saved.started_at || fresh.started_at;
    fresh.current = Math.min(Math.max(0, saved.current | 0), ITEMS.length - 1);
    fresh.rev = saved.rev | 0;
    return fresh;
  }

  /* Save this tab's state unless another tab saved a newer revision since we read ours: then
   * that one is adopted and this tab's last change is reported as not saved. */
  function save() {
    var key = storeKey(state.evaluator_id);
    var stored = readStored(key);
    if (stored && (stored.rev | 0) !== state.rev) {
      adopt(stored, "Another tab of this packet saved newer work; it is shown here. Your last change " +
                    "in this tab was not saved: make it again.");
      return false;
    }
    state.rev += 1;
    writeStored(key, state);
    return true;
  }

  function adopt(saved, text) {
    var current = state.current;
    state = stateFrom(saved);
    state.current = current;
    render();
    message(text, true);
  }

  function onStorage(ev) {
    if (!ev.key || ev.key !== storeKey(state.evaluator_id) || !ev.newValue) { return; }
    var saved;
    try { saved = JSON.parse(ev.newValue); } catch (err) { return; }
    if (!saved || saved.packet_sha256 !== SHA || (saved.rev | 0) <= state.rev) { return; }
    adopt(saved, "Updated from another tab of this packet (work in one tab at a time).");
  }

  function accepted_count(st) {
    return ITEMS.filter(function (it) { return st.items[it.item].accepted; }).length;
  }

  /* the session to open with: the evaluator last working in this browser, else a draft */
  function restore() {
    var current = null;
    try { current = localStorage.getItem(CURRENT_KEY); } catch (err) { storageOk = false; }
    var saved = current && ID_RE.test(current) ? readStored(storeKey(current)) : null;
    if (saved) { state = stateFrom(saved); state.evaluator_id = current; return "evaluator"; }
    saved = readStored(storeKey(""));
    if (saved) { state = stateFrom(saved); state.evaluator_id = ""; return "draft"; }
    return null;
  }

  /* Enter an evaluator id: restores that evaluator's saved work (with a warning), or makes the
   * current draft theirs. */
  function commitEvaluator(id) {
    if (state.evaluator_id) { return true; }
    if (!ID_RE.test(id)) {
      message("Evaluator id: 1-40 letters, digits, . _ - (starting with a letter or digit).", true);
      return false;
    }
    var saved = readStored(storeKey(id));
    if (saved) {
      state = stateFrom(saved);
      state.evaluator_id = id;
      try { localStorage.setItem(CURRENT_KEY, id); } catch (err) { storageOk = false; }
      render();
      warnRestored();
      return true;
    }
    state.evaluator_id = id;
    state.rev = 0;
    try {
      localStorage.removeItem(storeKey(""));
      localStorage.setItem(CURRENT_KEY, id);
    } catch (err) { storageOk = false; }
    save();
    renderEvaluator();
    message("Evaluator " + id + ": your work is saved in this browser under this id.", false);
    return true;
  }

  function warnRestored() {
    var n = accepted_count(state);
    message("Restored the work of evaluator \u201c" + state.evaluator_id + "\u201d saved in this browser (" + n +
            " of " + ITEMS.length + " items accepted). If you are not " + state.evaluator_id +
            ", press \u201cNew evaluator\u201d: never continue another evaluator\u2019s work.", true);
    var who = document.getElementById("who");
    who.textContent = "You are working as evaluator \u201c" + state.evaluator_id + "\u201d (restored from this browser).";
    who.hidden = false;
  }

  function newEvaluator() {
    var previous = state.evaluator_id;
    state = freshState();
    try { localStorage.setItem(CURRENT_KEY, ""); } catch (err) { storageOk = false; }
    try { localStorage.removeItem(storeKey("")); } catch (err) { storageOk = false; }
    render();
    document.getElementById("who").hidden = true;
    var input = document.getElementById("evaluator");
    input.focus();
    message("New evaluator session." + (previous ? " The work of " + previous + " stays saved in this browser " +
            "(entering " + previous + " again restores it)." : "") + " Enter your evaluator id.", false);
  }

  /* ------------------------------------------------------------------ gates */

  function quoteCheck(item, n, quote) {
    if (!quote.trim()) { return { ok: false, why: "no quote" }; }
    if (!nontrivial(quote)) {
      return { ok: false, why: "too short: at least " + RULES.min_chars + " characters, not only punctuation" };
    }
    var where = locate(pageText(item.document, n), quote);
    if (!where) { return { ok: false, why: "not found on page " + n }; }
    return { ok: true, start: where.start, end: where.end };
  }

  function validateItem(item, st) {
    var errors = [];
    if (st.clear !== true && st.clear !== false) {
      errors.push("The request: say whether it is clear enough to judge (Yes or No above the conditions).");
    }
    item.conditions.forEach(function (c, k) {
      var cs = st.conditions[c.index];
      var label = "Condition " + (k + 1) + " (\u201c" + c.name + "\u201d)";
      var ticked = c.pages.filter(function (n) { return cs.pages[n].checked; });
      var quoted = c.pages.filter(function (n) { return cs.pages[n].quote.trim() !== ""; });
      if (cs.answer === null) {
        errors.push(label + ": no answer yet.");
      } else if (cs.answer === "yes") {
        if (!ticked.length) { errors.push(label + ": a Yes needs at least one ticked page with a quote."); }
        ticked.forEach(function (n) {
          var q = quoteCheck(item, n, cs.pages[n].quote);
          if (!q.ok) { errors.push(label + ", page " + n + ": quote " + q.why + "."); }
        });
        quoted.forEach(function (n) {
          if (!cs.pages[n].checked) {
            errors.push(label + ", page " + n + ": has a quote but is not ticked (tick it or clear the quote).");
          }
        });
      } else {
        if (ticked.length || quoted.length) {
          errors.push(label + ": a No has no page and no quote (untick page(s) " +
                      ticked.concat(quoted.filter(function (n) { return ticked.indexOf(n) < 0; })).join(", ") +
                      " and clear the quotes).");
        }
      }
    });
    return errors;
  }

  /* ------------------------------------------------------------------ export / resume */

  function exportObject() {
    var items = ITEMS.map(function (it) {
      var st = state.items[it.item];
      return {
        item: it.item, accepted: st.accepted, accepted_at: st.accepted_at, updated_at: st.updated_at,
        request_clear: st.clear,
        conditions: it.conditions.map(function (c) {
          var cs = st.conditions[c.index];
          var evidence = [];
          c.pages.forEach(function (n) {
            var ps = cs.pages[n];
            if (!ps.checked && !ps.quote.trim()) { return; }
            var q = ps.checked ? quoteCheck(it, n, ps.quote) : { ok: false };
            if (q.ok) {
              var raw = codePoints(it.document, n).slice(q.start, q.end).join("");
              evidence.push({ page: n, quote: raw, start: q.start, end: q.end, sha256: sha256hex(raw) });
            } else {
              evidence.push({ page: n, quote: ps.quote, start: null, end: null, sha256: null,
                              ticked: ps.checked });
            }
          });
          return { index: c.index, answer: cs.answer, evidence: evidence };
        })
      };
    });
    return {
      format: "nclue-audit-export", version: 1, packet_id: P.packet_id, packet_sha256: SHA,
      stage: P.stage, evaluator_id: state.evaluator_id, started_at: state.started_at,
      exported_at: now(), complete: ITEMS.every(function (it) { return state.items[it.item].accepted; }),
      items: items
    };
  }

  function exportText() { return JSON.stringify(exportObject(), null, 1) + "\n"; }

  var ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/;

  function doExport() {
    pendingEvaluator();
    if (!ID_RE.test(state.evaluator_id)) {
      message("Enter your evaluator id (letters, digits, . _ -) before exporting.", true);
      document.getElementById("evaluator").focus();
      return null;
    }
    var text = exportText();
    var name = "nclue-audit-" + P.packet_id + "-" + state.evaluator_id + ".json";
    var blob = new Blob([text], { type: "application/json" });
    var a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
    var done = ITEMS.filter(function (it) { return state.items[it.item].accepted; }).length;
    message("Exported " + name + " (" + done + " of " + ITEMS.length + " items accepted).", false);
    return text;
  }

  function resumeFrom(text, name) {
    var data;
    try { data = JSON.parse(text); } catch (err) { message(name + ": not a JSON file.", true); return false; }
    if (!data || data.format !== "nclue-audit-export") {
      message(name + ": not an export of this audit tool.", true); return false;
    }
    if (data.packet_sha256 !== SHA) {
      message(name + ": this export belongs to another packet (sha256 " +
              String(data.packet_sha256).slice(0, 12) + "\u2026, this packet " + SHA.slice(0, 12) + "\u2026).", true);
      return false;
    }
    var id = String(data.evaluator_id || "");
    if (!ID_RE.test(id)) { message(name + ": the export has no valid evaluator id.", true); return false; }
    var key = storeKey(id);
    var before = readStored(key);
    if (before) {
      try { localStorage.setItem(key + ":before-resume", JSON.stringify(before)); } catch (err) { /* ignore */ }
    }
    var fresh = freshState();
    fresh.evaluator_id = id;
    fresh.started_at = data.started_at || fresh.started_at;
    fresh.rev = before ? before.rev | 0 : 0;
    var byId = {};
    (data.items || []).forEach(function (it) { if (it && typeof it.item === "string") { byId[it.item] = it; } });
    var accepted = 0;
    ITEMS.forEach(function (it) {
      var got = byId[it.item];
      if (!got) { return; }
      var target = fresh.items[it.item];
      (got.conditions || []).forEach(function (gc) {
        var tc = target.conditions[gc.index];
        if (!tc) { return; }
        tc.answer = gc.answer === "yes" || gc.answer === "no" ? gc.answer : null;
        (gc.evidence || []).forEach(function (ev) {
          if (tc.pages[ev.page]) {
            tc.pages[ev.page] = { checked: ev.ticked === undefined ? true : !!ev.ticked, quote: String(ev.quote || "") };
          }
        });
      });
      target.clear = got.request_clear === true || got.request_clear === false ? got.request_clear : null;
      target.updated_at = got.updated_at || null;
      target.accepted_at = got.accepted_at || null;
      target.accepted = !!got.accepted && validateItem(it, target).length === 0;
      if (target.accepted) { accepted++; }
    });
    var previous = state.evaluator_id;
    state = fresh;
    try { localStorage.setItem(CURRENT_KEY, id); } catch (err) { storageOk = false; }
    state.rev += 1;
    writeStored(key, state);
    render();
    message("Resumed evaluator " + id + " from " + name + ": " + accepted + " of " + ITEMS.length + " items accepted." +
            (previous && previous !== id ? " (The work of " + previous + " stays saved in this browser.)" : ""), false);
    return true;
  }

  /* ------------------------------------------------------------------ rendering */

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") { node.textContent = attrs[k]; }
      else if (k === "cls") { node.className = attrs[k]; }
      else { node.setAttribute(k, attrs[k]); }
    });
    (children || []).forEach(function (c) { node.appendChild(c); });
    return node;
  }

  function message(text, bad) {
    var box = document.getElementById("message");
    box.textContent = text;
    box.className = bad ? "message bad" : "message good";
  }

  function renderSaveStatus() {
    var node = document.getElementById("saved");
    if (!node) { return; }
    node.textContent = storageOk ? (lastSaved ? "Saved in this browser " + lastSaved.slice(11, 19) + " UTC" : "")
      : "Autosave is not available in this browser: export your work regularly.";
    node.className = storageOk ? "saved" : "saved bad";
  }

  function renderStrip() {
    var strip = document.getElementById("strip");
    strip.textContent = "";
    ITEMS.forEach(function (it, i) {
      var st = state.items[it.item];
      var cls = "dot" + (st.accepted ? " accepted" : (st.updated_at ? " started" : "")) +
                (i === state.current ? " current" : "");
      var b = el("button", { cls: cls, type: "button", title: it.item + (st.accepted ? " (accepted)" : ""),
                             "aria-label": "Go to item " + (i + 1) });
      b.addEventListener("click", function () { go(i); });
      strip.appendChild(b);
    });
    var done = ITEMS.filter(function (it) { return state.items[it.item].accepted; }).length;
    document.getElementById("progress").textContent = done + " / " + ITEMS.length + " accepted";
  }

  /* Every edit of an item withdraws its acceptance: "accepted" always means the evaluator
   * accepted exactly the answers, pages and quotes shown. */
  function touched(item, st) {
    st.updated_at = now();
    var wasAccepted = st.accepted;
    st.accepted = false;
    st.accepted_at = null;
    if (!save()) { return; }
    var box = document.getElementById("errors");
    if (box.childNodes.length) { showErrors(validateItem(item, st)); }  /* keep a shown list current */
    renderStrip();
    renderStatus(item, st);
    if (wasAccepted) { message("Item " + item.item + " changed after it was accepted: accept it again.", true); }
  }

  function showErrors(errors) {
    var box = document.getElementById("errors");
    box.textContent = "";
    if (!errors.length) { return; }
    box.appendChild(el("p", { text: "This item cannot be accepted yet:" }));
    box.appendChild(el("ul", {}, errors.map(function (t) { return el("li", { text: t }); })));
  }

  function renderStatus(item, st) {
    var box = document.getElementById("item-status");
    box.textContent = "";
    if (st.accepted) {
      box.className = "item-status ok";
      box.appendChild(el("span", { text: "Accepted " + (st.accepted_at || "").slice(0, 19).replace("T", " ") + " UTC." }));
    } else {
      box.className = "item-status";
      box.appendChild(el("span", { text: "Not accepted yet." }));
    }
  }

  /* the page text, with the located quote (code points start..end) marked where it occurs */
  function renderPageText(pre, item, n, where) {
    pre.textContent = "";
    var text = pageText(item.document, n);
    if (!where) { pre.appendChild(document.createTextNode(text)); return; }
    var cps = codePoints(item.document, n);
    var before = cps.slice(0, where.start).join("");
    var quoted = cps.slice(where.start, where.end).join("");
    pre.appendChild(document.createTextNode(before));
    pre.appendChild(el("mark", { cls: "found", text: quoted }));
    pre.appendChild(document.createTextNode(text.slice(before.length + quoted.length)));
  }

  function renderQuoteState(item, c, n, ps, node, pre) {
    node.textContent = "";
    var q = ps.quote.trim() ? quoteCheck(item, n, ps.quote) : null;
    renderPageText(pre, item, n, q && q.ok ? q : null);
    if (!q) { node.className = "qstate"; return; }
    if (q.ok) {
      node.className = "qstate ok";
      node.textContent = "\u2713 found on page " + n + " (characters " + q.start + "\u2013" + q.end + "), marked in the page";
    } else {
      node.className = "qstate bad";
      node.textContent = "\u2717 " + q.why;
    }
  }

  function renderClarity(item, st) {
    var box = document.getElementById("clarity");
    box.textContent = "";
    var set = el("fieldset", { cls: "answer clarity" });
    set.appendChild(el("legend", { text: "Is the request clear enough to judge?" }));
    [[true, "yes", "Yes \u2014 I understand what it asks"], [false, "no", "No \u2014 it is ambiguous or unclear"]]
      .forEach(function (opt) {
        var id = "clear-" + opt[1];
        var input = el("input", { type: "radio", name: "clear", id: id, value: opt[1] });
        input.checked = st.clear === opt[0];
        input.addEventListener("change", function () { st.clear = opt[0]; touched(item, st); });
        set.appendChild(el("label", { "for": id, cls: "opt" }, [input, el("span", { text: " " + opt[2] })]));
      });
    box.appendChild(set);
  }

  function renderCondition(item, c, k, st) {
    var cs = st.conditions[c.index];
    var card = el("section", { cls: "condition", id: "cond-" + k });
    card.appendChild(el("h3", { text: "Condition " + (k + 1) + ": \u201c" + c.name + "\u201d" }));
    card.appendChild(el("p", { cls: "requirement", text: c.requirement }));
    var rub = el("div", { cls: "rubric" });
    rub.appendChild(el("div", { cls: "counts" }, [el("h4", { text: "Counts" }),
      el("ul", {}, c.counts.map(function (t) { return el("li", { text: t }); }))]));
    rub.appendChild(el("div", { cls: "nocounts" }, [el("h4", { text: "Does not count" }),
      el("ul", {}, c.does_not_count.map(function (t) { return el("li", { text: t }); }))]));
    card.appendChild(rub);
    if (c.note) { card.appendChild(el("p", { cls: "note", text: c.note })); }

    var answer = el("fieldset", { cls: "answer" });
    answer.appendChild(el("legend", { text: "Do the displayed pages establish this condition?" }));
    [["yes", "Yes \u2014 a displayed page establishes it (tick the page, quote the text)"],
     ["no", "No \u2014 no displayed passage establishes it"]].forEach(function (opt) {
      var id = "ans-" + k + "-" + opt[0];
      var input = el("input", { type: "radio", name: "ans-" + k, id: id, value: opt[0] });
      input.checked = cs.answer === opt[0];
      input.addEventListener("change", function () { cs.answer = opt[0]; touched(item, st); });
      answer.appendChild(el("label", { "for": id, cls: "opt" }, [input, el("span", { text: " " + opt[1] })]));
    });
    card.appendChild(answer);

    var grid = el("div", { cls: "pages pages-" + Math.min(3, c.pages.length) });
    c.pages.forEach(function (n) {
      var ps = cs.pages[n];
      var box = el("div", { cls: "page" + (ps.checked ? " ticked" : "") });
      var tick = el("input", { type: "checkbox", id: "tick-" + k + "-" + n });
      tick.checked = ps.checked;
      var head = el("div", { cls: "page-head" }, [el("label", { "for": "tick-" + k + "-" + n }, [tick,
        el("span", { text: " Page " + n + " \u2014 evidence on this page" })])]);
      box.appendChild(head);
      var pre = el("pre", { cls: "text", tabindex: "0", id: "text-" + k + "-" + n });
      box.appendChild(pre);
      var quote = el("textarea", { rows: "2", cls: "quote", id: "quote-" + k + "-" + n,
                                   placeholder: "Quote from page " + n + " (exact text)" });
      quote.value = ps.quote;
      var qstate = el("div", { cls: "qstate" });
      var use = el("button", { type: "button", cls: "use", text: "Use selection", id: "use-" + k + "-" + n });
      use.addEventListener("click", function () {
        var sel = window.getSelection();
        if (!sel || sel.isCollapsed || !pre.contains(sel.anchorNode)) {
          message("Select text inside page " + n + " first.", true); return;
        }
        quote.value = sel.toString();
        ps.quote = quote.value;
        if (!ps.checked) { ps.checked = true; tick.checked = true; box.classList.add("ticked"); }
        renderQuoteState(item, c, n, ps, qstate, pre);
        touched(item, st);
      });
      tick.addEventListener("change", function () {
        ps.checked = tick.checked;
        box.classList.toggle("ticked", ps.checked);
        touched(item, st);
      });
      quote.addEventListener("input", function () {
        ps.quote = quote.value;
        renderQuoteState(item, c, n, ps, qstate, pre);
        touched(item, st);
      });
      box.appendChild(el("div", { cls: "quote-row" }, [quote, use]));
      box.appendChild(qstate);
      renderQuoteState(item, c, n, ps, qstate, pre);
      grid.appendChild(box);
    });
    card.appendChild(grid);
    return card;
  }

  function renderEvaluator() {
    var input = document.getElementById("evaluator");
    input.value = state.evaluator_id;
    input.readOnly = !!state.evaluator_id;
    document.getElementById("new-evaluator").hidden = !state.evaluator_id;
  }

  function render() {
    var i = state.current;
    var item = ITEMS[i];
    var st = state.items[item.item];
    renderEvaluator();
    document.getElementById("position").textContent = "Item " + (i + 1) + " of " + ITEMS.length + " (" + item.item + ")";
    document.getElementById("request").textContent = item.request;
    renderClarity(item, st);
    var asked = item.conditions.map(function (c) { return c.name; });
    var others = item.all_conditions.filter(function (n) { return asked.indexOf(n) < 0; });
    document.getElementById("asked").textContent = others.length
      ? "Asked here: " + asked.map(function (n) { return "\u201c" + n + "\u201d"; }).join(", ") +
        ". The other conditions of the request are not asked in this poll."
      : "";
    var body = document.getElementById("conditions");
    body.textContent = "";
    item.conditions.forEach(function (c, k) { body.appendChild(renderCondition(item, c, k, st)); });
    document.getElementById("errors").textContent = "";
    renderStatus(item, st);
    renderStrip();
    renderSaveStatus();
  }

  /* the instructions are open on the first item until an item is accepted, then collapsed */
  function placeInstructions() {
    document.getElementById("instructions-box").open = state.current === 0 && accepted_count(state) === 0;
  }

  /* ------------------------------------------------------------------ actions */

  function go(i) {
    state.current = Math.min(Math.max(0, i), ITEMS.length - 1);
    save();  /* on a conflict the other tab's work is adopted, at this position */
    render();
    placeInstructions();
    window.scrollTo(0, 0);
  }

  function next() { go(state.current + 1); }
  function previous() { go(state.current - 1); }

  /* an id typed but not yet entered (Enter or leaving the field) is entered first */
  function pendingEvaluator() {
    if (state.evaluator_id) { return true; }
    var typed = document.getElementById("evaluator").value.trim();
    return typed ? commitEvaluator(typed) : false;
  }

  function accept() {
    var idOk = pendingEvaluator();
    var item = ITEMS[state.current];
    var st = state.items[item.item];
    var errors = validateItem(item, st);
    if (!idOk || !ID_RE.test(state.evaluator_id)) {
      errors.unshift("Enter your evaluator id (letters, digits, . _ -) at the top of the page.");
    }
    var box = document.getElementById("errors");
    showErrors(errors);
    if (errors.length) {
      st.accepted = false;
      st.accepted_at = null;
      save();
      renderStatus(item, st);
      renderStrip();
      message("Item " + item.item + " not accepted: " + errors.length + " problem(s), listed above the conditions.", true);
      if (box.scrollIntoView) { box.scrollIntoView({ block: "center" }); }
      return false;
    }
    st.accepted = true;
    st.accepted_at = now();
    if (!save()) { return false; }
    message("Item " + item.item + " accepted.", false);
    if (state.current < ITEMS.length - 1) { next(); } else { render(); placeInstructions(); }
    return true;
  }

  function onKey(ev) {
    var tag = (ev.target && ev.target.tagName) || "";
    var typing = tag === "TEXTAREA" || (tag === "INPUT" && (ev.target.type === "text" || ev.target.type === "search"));
    if ((ev.ctrlKey || ev.metaKey) && ev.key === "Enter") { ev.preventDefault(); accept(); return; }
    if (typing || ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    if (ev.key === "ArrowRight" || ev.key === "j") { ev.preventDefault(); next(); }
    else if (ev.key === "ArrowLeft" || ev.key === "k") { ev.preventDefault(); previous(); }
    else if (ev.key === "?") { ev.preventDefault(); document.getElementById("help").toggleAttribute("open"); }
  }

  function init() {
    document.title = P.title + " \u2014 " + P.packet_id;
    document.getElementById("title").textContent = P.title;
    document.getElementById("packet").textContent = "Packet " + P.packet_id + " \u00b7 sha256 " + SHA.slice(0, 16) + "\u2026";
    var instr = document.getElementById("instructions");
    P.instructions.forEach(function (t) { instr.appendChild(el("p", { text: t })); });
    var restored = restore();
    var input = document.getElementById("evaluator");
    input.addEventListener("change", function () { commitEvaluator(input.value.trim()); });
    input.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" && !ev.ctrlKey && !ev.metaKey) { ev.preventDefault(); commitEvaluator(input.value.trim()); }
    });
    document.getElementById("new-evaluator").addEventListener("click", newEvaluator);
    document.getElementById("prev").addEventListener("click", previous);
    document.getElementById("next").addEventListener("click", next);
    document.getElementById("accept").addEventListener("click", accept);
    document.getElementById("export").addEventListener("click", doExport);
    document.getElementById("resume").addEventListener("change", function (ev) {
      var file = ev.target.files && ev.target.files[0];
      if (!file) { return; }
      var reader = new FileReader();
      reader.onload = function () { resumeFrom(String(reader.result), file.name); ev.target.value = ""; };
      reader.readAsText(file);
    });
    document.addEventListener("keydown", onKey);
    window.addEventListener("storage", onStorage);
    var bad = [];
    Object.keys(P.pages).forEach(function (doc) {
      Object.keys(P.pages[doc]).forEach(function (n) {
        if (sha256hex(P.pages[doc][n].text) !== P.pages[doc][n].sha256) { bad.push(doc + "/" + n); }
      });
    });
    render();
    placeInstructions();
    if (bad.length) { message("Packet damaged: " + bad.length + " page text(s) do not match their sha256.", true); }
    else if (restored === "evaluator") { warnRestored(); }
    else if (restored === "draft") { message("Restored an unnamed draft saved in this browser: enter your evaluator id.", false); }
    else { message("New session: enter your evaluator id (then Enter), then judge the first item.", false); }
    document.body.setAttribute("data-ready", "1");
  }

  window.nclueAudit = {
    packetSha256: SHA, normalize: normalize, locate: locate, sha256hex: sha256hex,
    exportText: exportText, validate: function (i) { var it = ITEMS[i]; return validateItem(it, state.items[it.item]); },
    state: function () { return JSON.parse(JSON.stringify(state)); }, go: go, accept: accept,
    storeKey: storeKey
  };

  init();
})();
