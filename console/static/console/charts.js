// Charts of the report pages. A chart box names the json_script element holding its data
// (data-chart-source); without Chart.js, or with no data, the box stays hidden and the table
// beside it carries the same figures.
(function () {
  "use strict";

  var COLOURS = { paid: "#0b5cad", organic: "#7eaed8", revenue: "#1e6b34", spend: "#b3541e" };

  function readData(id) {
    var element = document.getElementById(id);
    if (!element) return null;
    try { return JSON.parse(element.textContent); } catch (e) { return null; }
  }

  function daily(box, data) {
    var canvas = box.querySelector("canvas");
    return new window.Chart(canvas, {
      data: {
        labels: data.labels,
        datasets: [
          { type: "bar", label: "Paid installs", data: data.paid, stack: "installs",
            backgroundColor: COLOURS.paid, yAxisID: "installs", order: 1 },
          { type: "bar", label: "Organic installs", data: data.organic, stack: "installs",
            backgroundColor: COLOURS.organic, yAxisID: "installs", order: 1 },
          { type: "line", label: "Revenue (" + data.currency + ")", data: data.revenue,
            borderColor: COLOURS.revenue, backgroundColor: COLOURS.revenue,
            yAxisID: "revenue", tension: 0.2, order: 0 }  // drawn over the bars
        ]
      },
      options: {
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: "index", intersect: false },
        scales: {
          x: { stacked: true },
          installs: { type: "linear", position: "left", stacked: true, beginAtZero: true,
                      title: { display: true, text: "Installs" }, ticks: { precision: 0 } },
          revenue: { type: "linear", position: "right", beginAtZero: true,
                     title: { display: true, text: data.currency },
                     grid: { drawOnChartArea: false } }
        }
      }
    });
  }

  // The fraud page's click-to-install histogram: one bar per fixed bucket.
  function ctit(box, data) {
    var canvas = box.querySelector("canvas");
    return new window.Chart(canvas, {
      type: "bar",
      data: {
        labels: data.labels,
        datasets: [{ label: "Installs", data: data.installs, backgroundColor: COLOURS.paid }]
      },
      options: {
        maintainAspectRatio: false,
        animation: false,
        plugins: { legend: { display: false } },
        scales: {
          x: { title: { display: true, text: "Click-to-install time" } },
          y: { beginAtZero: true, title: { display: true, text: "Installs" },
               ticks: { precision: 0 } }
        }
      }
    });
  }

  // The Cost page: spend as bars, revenue as a line, both in the report currency.
  function spend(box, data) {
    var canvas = box.querySelector("canvas");
    return new window.Chart(canvas, {
      data: {
        labels: data.labels,
        datasets: [
          { type: "bar", label: "Spend (" + data.currency + ")", data: data.spend,
            backgroundColor: COLOURS.spend, order: 1 },
          { type: "line", label: "Revenue (" + data.currency + ")", data: data.revenue,
            borderColor: COLOURS.revenue, backgroundColor: COLOURS.revenue, tension: 0.2,
            order: 0 }
        ]
      },
      options: {
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: "index", intersect: false },
        scales: { y: { beginAtZero: true, title: { display: true, text: data.currency } } }
      }
    });
  }

  var DRAW = { daily: daily, ctit: ctit, spend: spend };

  function drawAll() {
    if (typeof window.Chart !== "function") return;
    var boxes = document.querySelectorAll("[data-chart]");
    Array.prototype.forEach.call(boxes, function (box) {
      var draw = DRAW[box.getAttribute("data-chart")];
      var data = readData(box.getAttribute("data-chart-source"));
      if (!draw || !data || !data.labels || !data.labels.length) return;
      box.hidden = false;
      try { draw(box, data); } catch (e) { box.hidden = true; }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
