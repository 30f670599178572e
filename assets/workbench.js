/* Fusion Workbench: small clientside helpers that need the cytoscape instance.
 * cytoscape.js registers itself on its container element as `_cyreg.cy`; dash-cytoscape puts
 * the component's id on an ancestor of that container. The ids used here are those of
 * workbench/app/ids.py (CYTO "graph-view", OVERVIEW "overview"). */
(function () {
  function cyOf(id) {
    var root = document.getElementById(id);
    if (!root) { return null; }
    if (root._cyreg && root._cyreg.cy) { return root._cyreg.cy; }
    var inner = root.querySelectorAll("div");
    for (var i = 0; i < inner.length; i++) {
      if (inner[i]._cyreg && inner[i]._cyreg.cy) { return inner[i]._cyreg.cy; }
    }
    return null;
  }
  window.workbenchCy = cyOf;

  /* Fit everything: lower the zoom floor first if the drawing needs it (the server sets a
   * floor from the layout's size; this covers a canvas smaller than it assumed). */
  function fitAll(cy, padding) {
    var eles = cy.elements();
    if (eles.length === 0) { return; }
    var bb = eles.boundingBox();
    var need = Math.min((cy.width() - 2 * padding) / Math.max(bb.w, 1),
                        (cy.height() - 2 * padding) / Math.max(bb.h, 1));
    if (need < cy.minZoom()) { cy.minZoom(Math.max(need * 0.95, 1e-5)); }
    cy.fit(eles, padding);
  }
  window.workbenchFit = fitAll;

  /* Centre the view on the element whose vid is `found`, once the drawing has it (a search
   * or a replay step may open layers first: the new drawing arrives after this is called).
   * A box bigger than the view at zoom 1 is fitted instead. */
  function centre(cy, found, tries) {
    var el = cy.nodes('[vid = "' + found + '"]');  // an id the workbench made
    if (!el || el.length === 0) {
      if (tries > 0) { setTimeout(function () { centre(cy, found, tries - 1); }, 100); }
      return;
    }
    var bb = el.boundingBox();
    if (bb.w > cy.width() * 0.8 || bb.h > cy.height() * 0.8) {
      var z = Math.min(cy.width() * 0.9 / Math.max(bb.w, 1), cy.height() * 0.9 / Math.max(bb.h, 1));
      if (z < cy.minZoom()) { cy.minZoom(z); }
      cy.animate({fit: {eles: el, padding: 30}}, {duration: 300});
    } else {
      cy.animate({center: {eles: el}, zoom: Math.max(cy.zoom(), 1.0)}, {duration: 300});
    }
  }

  var HL = ["hl-sel", "hl-found", "hl-after", "hl-step"];
  function applyHighlight(cy, hl) {
    hl = hl || {};
    var want = {};
    function mark(vids, cls) {
      (vids || []).forEach(function (v) {
        if (v !== null && v !== undefined) { want[v] = (want[v] || []).concat([cls]); }
      });
    }
    mark([hl.found], "hl-found");
    mark(hl.after, "hl-after");
    mark(hl.step, "hl-step");
    cy.batch(function () {
      cy.nodes("." + HL.join(", .")).removeClass(HL.join(" "));
      if (hl.sel || Object.keys(want).length) {
        cy.nodes().forEach(function (n) {
          var cls = want[n.data("vid")] || [];
          if (hl.sel && n.data("gid") === hl.sel) { cls = cls.concat(["hl-sel"]); }
          if (cls.length) { n.addClass(cls.join(" ")); }
        });
      }
    });
  }
  window.workbenchHighlight = applyHighlight;

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    workbench: {
      fit: function (n, id) {
        var cy = cyOf(id);
        if (cy) { fitAll(cy, 20); }
        return window.dash_clientside.no_update;
      },
      checkUpload: function (contents, filename, limit) {
        var nu = window.dash_clientside.no_update;
        if (!contents) { return [nu, nu]; }
        var comma = contents.indexOf(",");
        var bytes = Math.floor((contents.length - comma - 1) * 3 / 4);
        if (limit && bytes > limit) {
          var mib = function (b) { return (b / 1048576).toFixed(1) + " MiB"; };
          return [nu, (filename || "the file") + ": the file is " + mib(bytes) +
                  ", more than the " + mib(limit) + " upload limit"];
        }
        return [{contents: contents, filename: filename}, nu];
      },
      /* ids.HIGHLIGHT (graph_figure.highlight_targets) as classes on the canvas's nodes:
       * the stylesheet stays as it is (a new one restyles and measures every element), and
       * only the nodes whose classes change are restyled. Applied again when the elements
       * change (a patched element's classes are the server's again), once now and once
       * after React drew them. Ids are compared with element data, not put in selectors. */
      highlight: function (hl, elements, id) {
        var cy = cyOf(id);
        if (cy) { applyHighlight(cy, hl); setTimeout(function () { applyHighlight(cy, hl); }, 0); }
        return window.dash_clientside.no_update;
      },
      center: function (found, id) {
        var cy = cyOf(id);
        if (cy && found) { centre(cy, found, 30); }
        return window.dash_clientside.no_update;
      },
      /* The callbacks below run in the browser so that an edit's new state (ids.VERSION) is
       * drawn in one round trip: Dash holds a callback back while any callback upstream of
       * its inputs is pending, and these are upstream of the canvas's. The facts they need
       * come with the version (workbench/app/opening.py: n, policy, device). */
      /* ids.HEADER_VERSION: the version, when the graph, the policy or the device changed
       * (the header and the view's reset listen to it); else nothing. */
      headerGate: function (version, policy, device) {
        var nu = window.dash_clientside.no_update;
        if (!version) { return nu; }
        if (version.graph || version.policy === undefined ||
            version.policy !== policy || version.device !== device) { return version; }
        return nu;
      },
      /* ids.DRAW_VERSION: the version, unless the callback that wrote it sent the canvas
       * with it (an edit: version.drawn); the canvas's callback listens to this one. */
      drawGate: function (version) {
        if (!version || version.drawn) { return window.dash_clientside.no_update; }
        return version;
      },
      /* ids.SESSION_REQUEST: the page's start asks the server for its session once. The
       * session store's timestamp changes when the answer writes the key; passed on, that
       * would ask again, and Dash would hold the canvas back until the second answer. */
      sessionGate: function (ts, version) {
        if (version) { return window.dash_clientside.no_update; }
        return typeof ts === "number" ? ts : -1;
      },
      /* ids.LINK_REQUEST: the URL's hash, only when it is a shared link (#ws=…). */
      linkGate: function (hash) {
        if (typeof hash === "string" && hash.indexOf("#ws=") === 0) { return hash; }
        return window.dash_clientside.no_update;
      },
      /* The tabs other than Plan (ids.COST_VERSION … ids.DIFF_VERSION, ids.STEP_SHOWN): the
       * version (with the selection for Cost and Compile & profile; the slider's step for
       * Explain's log) is copied to the shown tab's store only, and only when it differs:
       * an edit asks the server for nothing a hidden tab shows; showing a tab brings it up
       * to date. Registered in workbench/app/callbacks_load.py. */
      tabGate: function (version, tab, selected, step, cost, explain, profile, whatif, diff,
                         shown) {
        var nu = window.dash_clientside.no_update;
        var out = [nu, nu, nu, nu, nu, nu];
        if (!version) { return out; }
        var tabs = ["tab-cost", "tab-explain", "tab-profile", "tab-whatif", "tab-diff"];
        var now = [cost, explain, profile, whatif, diff];
        var k = tabs.indexOf(tab);
        if (k < 0) { return out; }
        var want = Object.assign({}, version);
        if (tab === "tab-cost" || tab === "tab-profile") {
          want.sel = (selected === undefined || selected === null) ? null : selected;
        }
        var have = now[k];
        if (!have || have.t !== want.t || have.sid !== want.sid ||
            (("sel" in want) && have.sel !== want.sel)) { out[k] = want; }
        if (tab === "tab-explain") {
          var s = (step === undefined || step === null) ? null : step;
          if (!shown || shown.t !== version.t || shown.step !== s) {
            out[5] = {t: version.t, step: s};
          }
        }
        return out;
      },
      /* ids.ROW_PICK: the group table's selected rows, unless they are the row the app
       * selected (ids.ROW_SET; the grid reports it back as a pick). */
      rowGate: function (rows, appSet) {
        var nu = window.dash_clientside.no_update;
        if (!Array.isArray(rows)) { return nu; }
        var got = rows.map(function (r) { return r && r.id; });
        var want = (appSet === null || appSet === undefined) ? [] : [appSet];
        if (got.length === want.length && got.every(function (x, k) { return x === want[k]; })) {
          return nu;
        }
        return rows;
      },
      /* The first-visit help box (ids.HELP), until "Got it" (ids.HELP_CLOSE): the browser
       * remembers (ids.FIRST_VISIT, local storage). */
      firstVisit: function (n, ts, seen) {
        var trig = (window.dash_clientside.callback_context.triggered || [])
          .map(function (t) { return t.prop_id; });
        if (trig.indexOf("first-help-close.n_clicks") >= 0 && n) {
          return [{display: "none"}, {seen: true}];
        }
        return [seen ? {display: "none"} : {}, window.dash_clientside.no_update];
      },
      /* The plan panel's edit message is about the plan it was said of: a version that is
       * not an edit's (another graph, a new proposal, an uploaded plan: no version.keep)
       * clears it, and its style goes back to information. */
      clearEdit: function (version) {
        var nu = window.dash_clientside.no_update;
        if (!version || typeof version.keep === "number") { return [nu, nu]; }
        return ["", "msg info"];
      },
      /* Compile & profile's message is about the last run: another plan or backend clears
       * it (another graph the status line and the progress bar too). */
      clearProfile: function (version, backend) {
        var nu = window.dash_clientside.no_update;
        var trig = (window.dash_clientside.callback_context.triggered || [])
          .map(function (t) { return t.prop_id; });
        if (trig.indexOf("state-version.data") >= 0 && version && version.graph) {
          return ["", "", "0"];
        }
        return ["", nu, nu];
      },
      /* The replay slider for a new plan of n decisions: at its end (the plan itself), but
       * a step before the end stays where it is when the new plan's log has the same
       * decisions up to it (version.keep: an edit adds one, undo takes it away), and says
       * why when it cannot. */
      stepReset: function (version, max, value) {
        var nu = window.dash_clientside.no_update;
        if (!version || typeof version.n !== "number") { return [nu, nu, nu]; }
        var n = version.n;
        var mid = typeof value === "number" && typeof max === "number" && value < max;
        if (mid && typeof version.keep === "number" && value <= version.keep) {
          return [max === n ? nu : n, nu, ""];
        }
        var note = "";
        if (mid) {
          note = typeof version.keep === "number"
            ? "The plan changed: step " + value + " is not in its log any more (the log " +
              "differs from step " + (version.keep + 1) + " on); the slider is at the " +
              "end, the plan itself (step " + n + ")."
            : "A new plan: the slider went from step " + value + " to its end (step " + n +
              ", the plan itself).";
        }
        return [max === n ? nu : n, value === n ? nu : n, note];
      },
      /* ids.SEARCH_MSG: Close layer's hint (callbacks_view.CLOSE_HINT) goes at the next
       * click on the canvas; any other message (a search's) stays. */
      hintGate: function (tapped, msg) {
        if (typeof msg === "string" && msg.indexOf("Close layer: ") === 0) { return ""; }
        return window.dash_clientside.no_update;
      },
      /* Another tab than Explain: the replay's step is not drawn (the plan is, without the
       * replay's banner and marks); back on Explain with the slider before its end, that
       * step is drawn again (ids.REPLAY_REQUEST, as stepGate asks). */
      replayTab: function (tab, value, max, step, marks) {
        var nu = window.dash_clientside.no_update;
        if (tab !== "tab-explain") {
          if (step === null || step === undefined) { return [nu, nu, nu, nu]; }
          /* the step's focus (ids.FOUND, marked hl-found) goes with its marks */
          return [nu, null, marks === null || marks === undefined ? nu : null, null];
        }
        if (value === null || value === undefined || (typeof max === "number" && value >= max)) {
          return [nu, nu, nu, nu];
        }
        return [value, nu, nu, nu];
      },
      /* The slider moved: at its end the plan itself is drawn (no step, no marks: nothing
       * asked of the server); before it the server draws the step (ids.REPLAY_REQUEST). */
      stepGate: function (value, max, step, marks) {
        var nu = window.dash_clientside.no_update;
        if (value === null || value === undefined || (typeof max === "number" && value >= max)) {
          return [nu, step === null || step === undefined ? nu : null,
                  marks === null || marks === undefined ? nu : null];
        }
        return [value, nu, nu];
      }
    }
  });

  /* AG Grid helpers (dash-ag-grid looks them up by name): group ids sort by number. */
  var dagfuncs = window.dashAgGridFunctions = window.dashAgGridFunctions || {};
  dagfuncs.groupOrder = function (a, b) {
    var na = parseInt(String(a || "").replace(/\D+/g, ""), 10);
    var nb = parseInt(String(b || "").replace(/\D+/g, ""), 10);
    if (isNaN(na) || isNaN(nb)) { return String(a).localeCompare(String(b)); }
    return na - nb;
  };
})();

/* After a layout that fits the whole graph (a new graph), keep labels readable: if fitting
 * needed a zoom below READABLE, zoom to READABLE at the top of the graph (centred on its
 * topmost nodes, where the dataflow starts) instead; Fit and the overview show the rest. */
(function () {
  var CANVAS = "graph-view";
  var READABLE = 0.75;
  function readable(evt) {
    var cy = evt.cy;
    var opts = evt.layout && evt.layout.options;
    // opts.whole: Collapse all / Expand all ask for the whole drawing (callbacks_view.draw)
    if (!opts || !opts.fit || opts.whole || cy.nodes().length === 0 || cy.zoom() >= READABLE) {
      return;
    }
    var bb = cy.elements().boundingBox();
    var leaves = cy.nodes().filter(function (n) { return !n.isParent(); });
    var top = Math.min.apply(null, leaves.map(function (n) { return n.position("y"); }));
    var first = leaves.filter(function (n) { return n.position("y") < top + 5; });
    var x = first.map(function (n) { return n.position("x"); })
      .reduce(function (a, b) { return a + b; }, 0) / first.length;
    cy.zoom(READABLE);
    cy.pan({x: cy.width() / 2 - x * READABLE, y: 20 - bb.y1 * READABLE});
  }
  function attach() {
    var cy = window.workbenchCy(CANVAS);
    if (!cy) { setTimeout(attach, 100); return; }
    if (!cy._workbenchReadable) {
      cy._workbenchReadable = true;
      cy.on("layoutstop", readable);
    }
  }
  attach();
})();

/* The overview map: the whole drawing in a small canvas (boxes of layers and groups, dots for
 * ops), the part the main view shows as a blue rectangle; a click or a drag moves the view
 * there. Redrawn (at most once a frame) when the view moves or the drawing changes. */
(function () {
  var CANVAS = "graph-view", MAP = "overview";
  function colour(n) {
    var c = n.style("background-color");
    return c || "#8c959f";
  }
  function paintNodes(cy, map) {
    var W = map.width, H = map.height;
    var off = map._off || (map._off = document.createElement("canvas"));
    off.width = W; off.height = H;
    var ctx = off.getContext("2d");
    ctx.fillStyle = "rgba(255,255,255,0.92)";
    ctx.fillRect(0, 0, W, H);
    var eles = cy.elements();
    if (eles.length === 0) { map._view = null; return; }
    var bb = eles.boundingBox();
    var s = Math.min((W - 8) / Math.max(bb.w, 1), (H - 8) / Math.max(bb.h, 1));
    var ox = (W - bb.w * s) / 2 - bb.x1 * s, oy = (H - bb.h * s) / 2 - bb.y1 * s;
    map._view = {s: s, ox: ox, oy: oy};
    cy.nodes().forEach(function (n) {
      if (n.hasClass("title")) { return; }
      var b = n.boundingBox({includeLabels: false, includeOverlays: false});
      var x = b.x1 * s + ox, y = b.y1 * s + oy, w = Math.max(b.w * s, 1), h = Math.max(b.h * s, 1);
      if (n.isParent()) {
        ctx.strokeStyle = n.hasClass("layer") ? "#8c959f" : colour(n);
        ctx.lineWidth = 1;
        ctx.strokeRect(x, y, w, h);
      } else {
        ctx.fillStyle = n.hasClass("source") ? "#c5cad1" :
          (n.hasClass("group") || n.hasClass("layer") ? colour(n) : "#57606a");
        ctx.fillRect(x, y, w, h);
      }
    });
  }
  function draw(cy, map) {
    if (map._dirty || !map._off) { paintNodes(cy, map); map._dirty = false; }
    var ctx = map.getContext("2d");
    ctx.clearRect(0, 0, map.width, map.height);
    ctx.drawImage(map._off, 0, 0);
    var v = map._view;
    if (!v) { return; }
    var e = cy.extent();
    ctx.strokeStyle = "#0969da";
    ctx.lineWidth = 2;
    /* clamped to the map: when the view shows the whole drawing and more (after Collapse
     * all, Expand all, Fit) the rectangle is the map's edge, not drawn outside it */
    var x1 = Math.max(1, e.x1 * v.s + v.ox), y1 = Math.max(1, e.y1 * v.s + v.oy);
    var x2 = Math.min(map.width - 1, e.x2 * v.s + v.ox);
    var y2 = Math.min(map.height - 1, e.y2 * v.s + v.oy);
    if (x2 > x1 && y2 > y1) { ctx.strokeRect(x1, y1, x2 - x1, y2 - y1); }
  }
  function attach() {
    var cy = window.workbenchCy(CANVAS);
    var map = document.getElementById(MAP);
    if (!cy || !map) { setTimeout(attach, 150); return; }
    if (map._attached) { return; }
    map._attached = true;
    var pending = false;
    function schedule() {
      if (pending) { return; }
      pending = true;
      requestAnimationFrame(function () { pending = false; draw(cy, map); });
    }
    cy.on("viewport", schedule);
    var dirty = function () { map._dirty = true; schedule(); };
    dirty._workbench = true;  // kept by the echo's removal below
    cy.on("add remove position layoutstop", dirty);
    window.addEventListener("resize", schedule);
    function goTo(evt) {
      var v = map._view;
      if (!v) { return; }
      var r = map.getBoundingClientRect();
      var mx = (evt.clientX - r.left) * map.width / r.width;
      var my = (evt.clientY - r.top) * map.height / r.height;
      var x = (mx - v.ox) / v.s, y = (my - v.oy) / v.s;
      cy.pan({x: cy.width() / 2 - x * cy.zoom(), y: cy.height() / 2 - y * cy.zoom()});
    }
    var dragging = false;
    map.addEventListener("mousedown", function (evt) { dragging = true; goTo(evt); });
    window.addEventListener("mousemove", function (evt) { if (dragging) { goTo(evt); } });
    window.addEventListener("mouseup", function () { dragging = false; });
    schedule();
  }
  attach();
})();

/* A slider's number box (Dash's dcc.Slider) applies its value when it loses focus (Tab), not
 * on Enter: Enter in it blurs it, which applies the value the same way. */
(function () {
  document.addEventListener("keydown", function (evt) {
    var t = evt.target;
    if (evt.key !== "Enter" || !t || t.tagName !== "INPUT") { return; }
    // only a slider's box: a plain dcc.Input (the search box) counts Enter in n_submit
    if (t.closest && t.closest(".dash-slider-container")) {
      evt.preventDefault();
      t.blur();
    }
  }, true);
})();

/* dash-cytoscape echoes the whole element list back to Dash 100 ms after any element is added
 * or removed (or dragged): its updateElements calls json() three times on every element and
 * sets the component's elements prop, which Dash stores and renders again; the component then
 * deep-compares the lists, measures every element's rendered box and the callbacks that read
 * the elements (the highlight) run again. The workbench reads no position back (every element
 * comes from the server with its position), so the echo only costs: its listeners (add,
 * remove and dragfree on the core, no selector) are dropped once the canvas exists; the
 * node-selection listeners ("unselect remove" on nodes) and the overview's are kept. */
(function () {
  var CANVAS = "graph-view";
  var ECHO = {add: true, remove: true, dragfree: true};
  function drop() {
    var cy = window.workbenchCy && window.workbenchCy(CANVAS);
    var em = cy && cy.emitter && cy.emitter();
    if (!em || !em.listeners) { setTimeout(drop, 100); return; }
    if (cy._workbenchNoEcho) { return; }
    cy._workbenchNoEcho = true;
    em.listeners = em.listeners.filter(function (l) {
      return !(ECHO[l.type] && !l.qualifier && !(l.callback && l.callback._workbench));
    });
  }
  drop();
})();

/* dash-cytoscape checks after every change of its elements whether the whole drawing lies
 * outside the view (then it fits): it asks cytoscape for the rendered bounding box of every
 * element, labels included, which makes cytoscape compute the style, label size and compound
 * bounds of all of them at once: 0.9 s of the 1.9 s an opened layer of the forward module (390
 * elements) took (CPU profile, load 3.9). The same question answered from the leaves' positions
 * (the model's coordinates through the zoom and pan, with a margin for their size) costs a
 * pass over the nodes' positions. */
(function () {
  var MARGIN = 60;  // px: about half a node's rendered size at zoom 1
  function outOfView() {
    var cy = this._cy;
    if (!cy) { return false; }
    var w = cy.width(), h = cy.height(), z = cy.zoom(), pan = cy.pan();
    var leaves = cy.nodes().filter(function (n) { return !n.isParent(); });
    if (leaves.length === 0) { return false; }
    for (var i = 0; i < leaves.length; i++) {
      var p = leaves[i].position();
      var x = p.x * z + pan.x, y = p.y * z + pan.y;
      if (x > -MARGIN && y > -MARGIN && x < w + MARGIN && y < h + MARGIN) { return false; }
    }
    return true;
  }
  function patch() {
    var lib = window.dash_cytoscape;
    var C = lib && lib.Cytoscape;
    if (!C || !C.prototype || !C.prototype.graphOutOfView) { setTimeout(patch, 50); return; }
    C.prototype.graphOutOfView = outOfView;
  }
  patch();
})();

/* The canvas hidden and shown again (the Learn page and back): while its container has no size,
 * a fit computes the zoom from a 0x0 viewport and ends at the maximum zoom (3), so the graph came
 * back zoomed in on one corner. A ResizeObserver keeps the view the canvas had when it was
 * hidden and puts it back when it is shown; if the drawing changed meanwhile, it fits it. */
(function () {
  var CANVAS = "graph-view";
  function attach() {
    var cy = window.workbenchCy(CANVAS);
    if (!cy || typeof ResizeObserver === "undefined") {
      if (typeof ResizeObserver !== "undefined") { setTimeout(attach, 100); }
      return;
    }
    if (cy._workbenchShown) { return; }
    cy._workbenchShown = true;
    var saved = null, changed = false, hidden = false;
    cy.on("add remove", function () { if (hidden) { changed = true; } });
    new ResizeObserver(function (entries) {
      var r = entries[entries.length - 1].contentRect;
      var none = r.width === 0 || r.height === 0;
      if (none && !hidden) {
        hidden = true; changed = false;
        saved = {zoom: cy.zoom(), pan: Object.assign({}, cy.pan())};
      } else if (!none && hidden) {
        hidden = false;
        var view = saved, refit = changed || !saved;
        var put = function () {
          cy.resize();
          if (refit) { window.workbenchFit(cy, 30); } else { cy.viewport(view); }
        };
        // dash-cytoscape fits once more as the canvas gets its size back (to the maximum zoom):
        // put the view back now and after that
        put(); setTimeout(put, 300);
      }
    }).observe(cy.container());
  }
  attach();
})();
