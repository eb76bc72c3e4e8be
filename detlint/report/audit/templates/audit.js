// The table of tests: sorted, filtered and paged in the page, from the data the
// report embeds. Every number and text was written by detlint; nothing here computes
// a probability.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("audit-data").textContent);
  var tests = data.tests, knobs = data.knobs;
  // Each row takes its policy's numbers and texts, and its suggestion, from the shared tables.
  tests.forEach(function (test) {
    var policy = data.policies[test.P];
    for (var key in policy) { test[key] = policy[key]; }
    test.g = data.helps[test.g];
  });
  var PAGE = 100;
  var state = { key: "s", descending: true, page: 0 };
  var body = document.getElementById("test-rows");
  var shown = document.getElementById("shown-count");
  var text = document.getElementById("filter-text");
  var rule = document.getElementById("filter-rule");
  var kind = document.getElementById("filter-kind");
  var minLoss = document.getElementById("filter-loss");
  var never = document.getElementById("filter-never");
  var pageLabel = document.getElementById("page-label");
  var previous = document.getElementById("page-previous");
  var next = document.getElementById("page-next");
  var printing = false;

  function element(tag, className, content) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (content !== undefined && content !== null) { node.textContent = content; }
    return node;
  }

  function matches(test) {
    var needle = text.value.trim().toLowerCase();
    if (needle && test.l.toLowerCase().indexOf(needle) < 0 && test.p.toLowerCase().indexOf(needle) < 0) { return false; }
    if (rule.value && test.ru.indexOf(rule.value) < 0) { return false; }
    if (kind.value && test.kk.indexOf(kind.value) < 0) { return false; }
    var floor = parseFloat(minLoss.value);
    if (!isNaN(floor) && test.s * 100 < floor) { return false; }
    if (never.checked && !test.nb) { return false; }
    return true;
  }

  function compare(a, b) {
    var x = a[state.key], y = b[state.key], order;
    if (x === null || x === undefined) { x = state.descending ? -Infinity : Infinity; }
    if (y === null || y === undefined) { y = state.descending ? -Infinity : Infinity; }
    if (typeof x === "string") { order = x.localeCompare(y); } else { order = x - y; }
    if (order === 0) { order = a.l.localeCompare(b.l); return order; }
    return state.descending ? -order : order;
  }

  function detail(test) {
    var row = element("tr", "detail");
    var cell = element("td");
    cell.colSpan = 7;
    var grid = element("dl", "detail-grid");
    function item(term, value) {
      grid.appendChild(element("dt", null, term));
      var dd = element("dd");
      if (typeof value === "string") { dd.textContent = value; } else { dd.appendChild(value); }
      grid.appendChild(dd);
    }
    var layers = element("ol", "layers");
    test.y.forEach(function (layer) { layers.appendChild(element("li", null, layer)); });
    item("Layers", layers);
    item("Reported at q=" + data.rate, test.rt + " (without the knobs " + test.wt + ")");
    item("q50", test.qt + " (without the knobs " + test.qwt + ")");
    if (test.tn) { item("Trials instead", test.tn); }
    if (test.st) { item("CI step shown", test.st); }
    if (test.m) { item("Measured in CI", test.m); }
    if (test.e.length) { item("Elsewhere", test.e.join("; ")); }
    if (test.o.length) { item("Notes", test.o.join("; ")); }
    var where = element("div");
    test.k.forEach(function (index) {
      var knob = knobs[index];
      where.appendChild(element("div", "mono", knob.p + ":" + knob.n + "  " + knob.d + (knob.c ? "  (where " + knob.c + ")" : "")));
      var quoted = knob.x.length === 1 && knob.x[0].indexOf(knob.d) >= 0;
      if (knob.x.length && !quoted) { where.appendChild(element("pre", "snippet", knob.x.join("\n"))); }
    });
    item("Knobs", where);
    if (test.g) { item("Suggested change", test.g); }
    if (test.f.length) { item("Finding ids", element("span", "mono", test.f.join(" "))); }
    cell.appendChild(grid);
    row.appendChild(cell);
    return row;
  }

  function row(test) {
    var tr = element("tr", "test-row");
    tr.tabIndex = 0;
    tr.setAttribute("data-test", test.l);
    var name = element("td");
    name.appendChild(element("div", "mono", test.l));
    tr.appendChild(name);
    var kinds = element("td");
    test.kk.forEach(function (k) { kinds.appendChild(element("span", "tag", k)); });
    tr.appendChild(kinds);
    var rules = element("td");
    test.ru.forEach(function (r) { rules.appendChild(element("span", "tag", r)); });
    tr.appendChild(rules);
    tr.appendChild(element("td", "num" + (test.nb ? " never" : ""), test.nb ? "never" : test.rt));
    tr.appendChild(element("td", "num", test.wt));
    tr.appendChild(element("td", "num", test.lt));
    tr.appendChild(element("td", "num", test.qt));
    function toggle() {
      var open = tr.nextSibling && tr.nextSibling.className === "detail";
      if (open) { body.removeChild(tr.nextSibling); } else { body.insertBefore(detail(test), tr.nextSibling); }
      tr.setAttribute("aria-expanded", open ? "false" : "true");
    }
    tr.addEventListener("click", toggle);
    tr.addEventListener("keydown", function (event) { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); toggle(); } });
    return tr;
  }

  function render() {
    var kept = tests.filter(matches);
    kept.sort(compare);
    var pages = Math.max(1, Math.ceil(kept.length / PAGE));
    if (state.page >= pages) { state.page = pages - 1; }
    var start = printing ? 0 : state.page * PAGE;
    var end = printing ? kept.length : Math.min(kept.length, start + PAGE);
    var fragment = document.createDocumentFragment();
    for (var i = start; i < end; i++) { fragment.appendChild(row(kept[i])); }
    body.textContent = "";
    body.appendChild(fragment);
    var noun = tests.length === 1 ? " test" : " tests";
    shown.textContent = kept.length === tests.length ? tests.length + noun : kept.length + " of " + tests.length + noun;
    pageLabel.textContent = "page " + (state.page + 1) + " of " + pages;
    previous.disabled = state.page === 0;
    next.disabled = state.page >= pages - 1;
    document.querySelectorAll("#tests thead th[data-key]").forEach(function (th) {
      th.setAttribute("aria-sort", th.getAttribute("data-key") === state.key ? (state.descending ? "descending" : "ascending") : "none");
    });
  }

  document.querySelectorAll("#tests thead th[data-key] button").forEach(function (button) {
    button.addEventListener("click", function () {
      var key = button.parentNode.getAttribute("data-key");
      if (state.key === key) { state.descending = !state.descending; } else { state.key = key; state.descending = key !== "l"; }
      state.page = 0;
      render();
    });
  });
  [text, rule, kind, minLoss, never].forEach(function (control) {
    control.addEventListener("input", function () { state.page = 0; render(); });
  });
  previous.addEventListener("click", function () { state.page -= 1; render(); });
  next.addEventListener("click", function () { state.page += 1; render(); });
  window.addEventListener("beforeprint", function () { printing = true; render(); });
  window.addEventListener("afterprint", function () { printing = false; render(); });
  render();
}());
