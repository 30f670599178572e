/* Fusion Workbench, the Learn page and the tour: page switching, the glossary's scroll, the
 * tour's pointer, and additive selection on the exercise canvas (ids: workbench/app/ids.py). */
(function () {
  var CANVASES = ["graph-view", "lesson-graph", "exercise-graph"];
  function resizeAll() {
    CANVASES.forEach(function (id) {
      var cy = window.workbenchCy && window.workbenchCy(id);
      if (cy) { cy.resize(); }
    });
  }
  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    learn: {
      route: function (pathname) {
        var learn = (pathname || "/").indexOf("/learn") === 0;
        setTimeout(resizeAll, 50);
        return [learn ? {display: "none"} : {}, learn ? {} : {display: "none"}];
      },
      showTerm: function (item) {
        var nu = window.dash_clientside.no_update;
        document.querySelectorAll(".term-entry.current").forEach(function (e) {
          e.classList.remove("current");
        });
        if (!item || item.kind !== "term" || !item.id) { return nu; }
        setTimeout(function () {
          var el = document.getElementById("term-" + item.id);
          if (el) { el.classList.add("current"); el.scrollIntoView({block: "center"}); }
        }, 50);
        return nu;
      },
      pointAt: function (target) {
        window.workbenchTourTarget = target || null;
        placeSpot();
        return window.dash_clientside.no_update;
      }
    }
  });
  /* the tour's spot: a frame drawn over the element the tour points at (a class on the
   * element itself would be wiped when React renders it again) */
  function placeSpot() {
    var spot = document.getElementById("tour-spot");
    var el = window.workbenchTourTarget && document.getElementById(window.workbenchTourTarget);
    if (!el || !el.offsetParent) { if (spot) { spot.style.display = "none"; } return; }
    if (!spot) {
      spot = document.createElement("div");
      spot.id = "tour-spot";
      spot.className = "tour-spot";
      document.body.appendChild(spot);
    }
    var r = el.getBoundingClientRect();
    spot.style.display = "block";
    spot.style.left = (r.left - 4) + "px";
    spot.style.top = (r.top - 4) + "px";
    spot.style.width = (r.width + 8) + "px";
    spot.style.height = (r.height + 8) + "px";
    spot.setAttribute("data-target", window.workbenchTourTarget);
  }
  setInterval(placeSpot, 400);
  /* a click on the exercise canvas adds an op to the selection (or takes it out) */
  function additive() {
    var cy = window.workbenchCy && window.workbenchCy("exercise-graph");
    if (!cy) { setTimeout(additive, 200); return; }
    cy.selectionType("additive");
  }
  additive();
})();

/* The lesson's and the exercise's canvases: a graph is fitted to its canvas when it opens
 * (every op in view). Only a graph so large that fitting it would draw its ops smaller than
 * MIN_FIT is zoomed to READABLE at its top (the inputs) instead. A canvas laid out while its
 * section was hidden (no size yet) is fitted when it first gets one. */
(function () {
  var READABLE = 0.6, MIN_FIT = 0.2, PADDING = 20;
  function fitted(cy) {
    if (cy.nodes().length === 0) { return; }
    cy.fit(cy.elements(), PADDING);
    if (cy.zoom() >= MIN_FIT) { return; }
    var bb = cy.elements().boundingBox();
    cy.zoom(READABLE);
    cy.pan({x: cy.width() / 2 - (bb.x1 + bb.x2) / 2 * READABLE, y: 20 - bb.y1 * READABLE});
  }
  function onLayout(evt) {
    var cy = evt.cy;
    var opts = evt.layout && evt.layout.options;
    if (!opts || !opts.fit) { return; }
    if (cy.width() === 0 || cy.height() === 0) {  // hidden: fit once it is shown
      cy._learnFitPending = true;
      return;
    }
    fitted(cy);
  }
  function watchSize(cy) {
    if (typeof ResizeObserver === "undefined") { return; }
    new ResizeObserver(function () {
      if (!cy._learnFitPending || cy.container().clientWidth === 0) { return; }
      cy._learnFitPending = false;
      cy.resize();
      fitted(cy);
    }).observe(cy.container());
  }
  ["lesson-graph", "exercise-graph"].forEach(function (id) {
    (function attach() {
      var cy = window.workbenchCy && window.workbenchCy(id);
      if (!cy) { setTimeout(attach, 200); return; }
      if (!cy._learnFit) { cy._learnFit = true; cy.on("layoutstop", onLayout); watchSize(cy); }
    })();
  });
})();
