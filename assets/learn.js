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
        document.querySelectorAll(".tour-target").forEach(function (e) {
          e.classList.remove("tour-target");
        });
        if (target) {
          var el = document.getElementById(target);
          if (el) { el.classList.add("tour-target"); }
        }
        return window.dash_clientside.no_update;
      }
    }
  });
  /* a click on the exercise canvas adds an op to the selection (or takes it out) */
  function additive() {
    var cy = window.workbenchCy && window.workbenchCy("exercise-graph");
    if (!cy) { setTimeout(additive, 200); return; }
    cy.selectionType("additive");
  }
  additive();
})();
