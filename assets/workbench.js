/* Fusion Workbench: small clientside helpers that need the cytoscape instance.
 * cytoscape.js registers itself on its container element as `_cyreg.cy`; dash-cytoscape puts
 * the component's id on an ancestor of that container. */
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
  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    workbench: {
      fit: function (n, id) {
        var cy = cyOf(id);
        if (cy) { cy.fit(undefined, 20); }
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
      center: function (found, id) {
        var cy = cyOf(id);
        if (cy && found) {
          var el = cy.nodes('[vid = "' + found + '"]');  // an id the workbench made
          if (el && el.length) {
            cy.animate({center: {eles: el}, zoom: Math.max(cy.zoom(), 1.0)}, {duration: 300});
          }
        }
        return window.dash_clientside.no_update;
      }
    }
  });
})();

/* After a layout that fits the whole graph (a new graph), keep labels readable: if fitting
 * needed a zoom below READABLE, zoom to READABLE at the top of the graph (centred on its
 * topmost nodes, where the dataflow starts) instead. The listener
 * is attached once, as soon as the canvas exists (its id is ids.CYTO in workbench/app/ids.py). */
(function () {
  var CANVAS = "graph-view";
  var READABLE = 0.75;
  function readable(evt) {
    var cy = evt.cy;
    var opts = evt.layout && evt.layout.options;
    if (!opts || !opts.fit || cy.nodes().length === 0 || cy.zoom() >= READABLE) { return; }
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
