/* The per-instance browser of a run page: one page of instances at a time, drawn with DOM text nodes
   (never as HTML). Static reports read pages from script files beside the page (data/<run>/page-NNNNN.js,
   each calling medhelmInstances(...)), which works from file:// with no network; the viewer answers the
   same JSON from its own server. Nothing here contacts any other address. */
(function () {
  "use strict";
  var root = document.getElementById("instances");
  if (!root) { return; }
  var list = root.querySelector(".list");
  var state = { page: 1, failed: false, loading: null };

  function pages() {
    return parseInt(state.failed ? root.dataset.failedPages : root.dataset.pages, 10) || 0;
  }
  function total() {
    return state.failed ? root.dataset.failedTotal : root.dataset.total;
  }
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function num(value) {
    return value === null || value === undefined ? "–" : Number(value).toFixed(3);
  }
  function section(parent, title, body) {
    parent.appendChild(el("h4", null, title));
    parent.appendChild(body);
  }
  function table(headers, rows) {
    var t = el("table", "small");
    var head = el("tr");
    headers.forEach(function (h) { head.appendChild(el("th", null, h)); });
    t.appendChild(el("thead")).appendChild(head);
    var body = el("tbody");
    rows.forEach(function (cells) {
      var tr = el("tr");
      cells.forEach(function (c) {
        var td = el("td", c && c.cls ? c.cls : null, c && typeof c === "object" ? c.text : c);
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    t.appendChild(body);
    return t;
  }
  function ratingsBlock(ratings) {
    var box = el("div", "ratings");
    ratings.slice().sort(function (a, b) {
      return (a.jury + "\u0000" + a.judge) < (b.jury + "\u0000" + b.judge) ? -1 : 1;
    }).forEach(function (r) {
      var who = r.jury + " / " + r.judge;
      if (!r.ok) {
        box.appendChild(el("p", "failed", "Judge " + who + " gave no rating: " + (r.error_type || "failed") +
          (r.error_message ? " (" + r.error_message + ")" : "")));
        return;
      }
      box.appendChild(el("p", null, "Judge " + who + ": mean " + num(r.mean)));
      var rows = Object.keys(r.ratings || {}).sort().map(function (criterion) {
        var c = r.ratings[criterion] || {};
        return [criterion, c.score, c.explanation || ""];
      });
      box.appendChild(table(["Criterion", "Score", "Explanation"], rows));
    });
    return box;
  }
  function instance(item) {
    var scoreFailed = (item.scores || []).some(function (s) { return s.value === null; });
    var ratingFailed = (item.ratings || []).some(function (r) { return !r.ok; });
    var card = el("article", "instance" + (item.ok === false || scoreFailed || ratingFailed ? " has-failure" : ""));
    var head = el("header");
    head.appendChild(el("span", "ordinal", "#" + (item.ordinal + 1)));
    head.appendChild(el("code", null, item.id));
    head.appendChild(el("span", item.ok === false ? "status failed" : "status",
      item.ok === false ? "request failed: " + (item.error_type || "unknown") :
      item.ok === null || item.ok === undefined ? "not answered yet" : "answered"));
    card.appendChild(head);
    if (item.prompt !== undefined) { section(card, "Prompt", el("pre", "prompt", item.prompt === null ? "(withheld)" : item.prompt)); }
    if (item.references !== undefined) {
      var refs = el("ul", "references");
      (item.references || []).filter(function (r) { return r.correct; }).forEach(function (r) {
        refs.appendChild(el("li", null, r.text));
      });
      section(card, "Reference", refs);
    }
    if (item.ok === false) {
      section(card, "Failure", el("p", "failed", (item.error_type || "failed") +
        (item.error_message ? ": " + item.error_message : "") + " (attempts: " + item.attempts + ")"));
    } else if (item.answer !== undefined) {
      section(card, "Answer", el("pre", "answer", item.answer === null ? "" : item.answer));
      if (item.finish_reason && item.finish_reason !== "stop") {
        card.appendChild(el("p", "note", "The answer ended with finish reason \"" + item.finish_reason + "\"" +
          (item.finish_reason === "length" ? " (cut at the token limit)." : ".")));
      }
    }
    if ((item.scores || []).length) {
      section(card, "Scores", table(["Metric", "Value", "Read from the answer", "Could not score"],
        item.scores.slice().sort(function (a, b) { return a.metric < b.metric ? -1 : 1; }).map(function (s) {
          return [s.metric, { text: num(s.value), cls: s.value === null ? "failed" : "value" },
            s.extracted === undefined || s.extracted === null ? "" : s.extracted, s.error || ""];
        })));
    }
    if ((item.ratings || []).length) { section(card, "Judge ratings", ratingsBlock(item.ratings)); }
    return card;
  }
  function show(data) {
    state.loading = null;
    list.textContent = "";
    if (!data.instances.length) { list.appendChild(el("p", null, "No instances on this page.")); }
    data.instances.forEach(function (item) { list.appendChild(instance(item)); });
    root.querySelector('[data-field="page"]').textContent = String(data.page);
    root.querySelector('[data-field="pages"]').textContent = String(data.pages);
    root.querySelector('[data-field="total"]').textContent = String(data.total);
    root.querySelector('input[data-go="page"]').value = String(data.page);
    root.querySelector('input[data-go="page"]').max = String(Math.max(1, data.pages));
  }
  function failedToLoad() {
    list.textContent = "";
    list.appendChild(el("p", "failed", "This page of instances could not be loaded."));
  }
  function load(page) {
    var last = Math.max(1, pages());
    state.page = Math.min(Math.max(1, page), last);
    if (!pages()) { show({ page: 1, pages: 0, total: 0, instances: [] }); return; }
    if (root.dataset.mode === "static") {
      var name = (state.failed ? "failed-" : "page-") + String(state.page).padStart(5, "0") + ".js";
      var old = document.getElementById("instances-page");
      if (old) { old.remove(); }
      var script = document.createElement("script");
      script.id = "instances-page";
      script.src = root.dataset.source + name;
      script.onerror = failedToLoad;
      document.body.appendChild(script);
      return;
    }
    var url = root.dataset.source + "?page=" + state.page + (state.failed ? "&failed=1" : "");
    fetch(url, { credentials: "same-origin" }).then(function (response) {
      if (!response.ok) { throw new Error(String(response.status)); }
      return response.json();
    }).then(show, failedToLoad);
  }
  window.medhelmInstances = show;
  var first = document.getElementById("instances-first");
  root.querySelector('[data-go="prev"]').addEventListener("click", function () { load(state.page - 1); });
  root.querySelector('[data-go="next"]').addEventListener("click", function () { load(state.page + 1); });
  root.querySelector('input[data-go="page"]').addEventListener("change", function (event) {
    load(parseInt(event.target.value, 10) || 1);
  });
  root.querySelector('input[data-go="failed"]').addEventListener("change", function (event) {
    state.failed = event.target.checked;
    root.querySelector('[data-field="total"]').textContent = String(total());
    load(1);
  });
  if (first) {
    show(JSON.parse(first.textContent));  // the viewer sends the first page inside the run page
  } else {
    load(1);
  }
}());
