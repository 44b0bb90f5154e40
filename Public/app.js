// FieldSync back-office: small progressive enhancements. Every page works without this file.
(function () {
  "use strict";

  // A slow save must not be submitted twice: after the first submit, disable the
  // form's buttons (on the next tick, so the clicked button's value is still sent).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    window.setTimeout(function () {
      form.querySelectorAll("button[type=submit]").forEach(function (button) {
        button.disabled = true;
        button.classList.add("busy");
      });
    }, 0);
  });

  // Leaving the settings page with unsaved edits asks first.
  var settings = document.querySelector("form.settings");
  if (settings) {
    var dirty = false;
    settings.addEventListener("input", function () { dirty = true; });
    settings.addEventListener("submit", function () { dirty = false; });
    settings.querySelectorAll("[data-discard]").forEach(function (link) {
      link.addEventListener("click", function () { dirty = false; });
    });
    window.addEventListener("beforeunload", function (event) {
      if (dirty) event.preventDefault();
    });
  }

  // The jobs page: a running job's progress bar follows the run without a reload, from its
  // JSON; once the run has ended the page reloads to show its outcome, duration and counts.
  document.querySelectorAll("[data-job-run]").forEach(function (row) {
    var bar = row.querySelector("progress");
    var text = row.querySelector("[data-progress-text]");
    var poll = function () {
      fetch(row.getAttribute("data-job-run"), { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (response) {
          if (!response.ok) throw new Error("status " + response.status);
          return response.json();
        })
        .then(function (run) {
          if (run.outcome !== "running") { window.location.reload(); return; }
          if (run.total == null) {
            bar.removeAttribute("value");
          } else {
            bar.max = run.total;
            bar.value = run.done;
          }
          text.textContent = run.text;
          window.setTimeout(poll, 1000);
        })
        .catch(function () { window.setTimeout(poll, 5000); });
    };
    window.setTimeout(poll, 1000);
  });

  // The dashboard's live operations panel: newest event first, the last 50 kept.
  // EventSource reconnects by itself and resumes with Last-Event-ID; `reset` means the
  // server no longer holds what was missed, so the page reloads for fresh figures.
  var feed = document.querySelector("[data-live-feed]");
  if (feed && window.EventSource) {
    var rows = feed.querySelector("[data-live-rows]");
    var status = feed.querySelector("[data-live-status]");
    var source = new EventSource(feed.getAttribute("data-live-feed"));
    var labels = {
      "order.created": function (d) { return "Order " + d.orderId + " submitted"; },
      "order.status_changed": function (d) { return "Order " + d.orderId + " " + String(d.status || "").toLowerCase(); },
      "conflict.opened": function (d) { return "Conflict opened on " + d.collection + "/" + d.recordId; },
      "conflict.resolved": function (d) { return "Conflict resolved on " + d.collection + "/" + d.recordId; },
      "record.changed": function (d) { return "Record " + d.collection + "/" + d.recordId + " changed"; },
      "device.synced": function (d) { return "Device " + d.deviceId + " synced"; },
      "attachment.completed": function (d) { return "Attachment " + (d.attId || "") + " uploaded"; },
      "settings.changed": function () { return "Settings changed"; }
    };
    var show = function (type, event) {
      var data = {};
      try { data = JSON.parse(event.data); } catch (error) { return; }
      // An order's own order.* event already says what changed.
      if (type === "record.changed" && data.collection === "orders") return;
      var row = document.createElement("li");
      var time = document.createElement("time");
      time.textContent = new Date().toLocaleTimeString();
      row.appendChild(time);
      // textContent, never innerHTML: ids come from devices.
      row.appendChild(document.createTextNode(" " + labels[type](data)));
      rows.insertBefore(row, rows.firstChild);
      while (rows.children.length > 50) rows.removeChild(rows.lastChild);
    };
    Object.keys(labels).forEach(function (type) {
      source.addEventListener(type, function (event) { show(type, event); });
    });
    source.addEventListener("reset", function () { window.location.reload(); });
    source.onopen = function () { status.textContent = "Connected. New events appear here as they happen."; };
    source.onerror = function () { status.textContent = "Connection lost; reconnecting…"; };
    status.textContent = "Connecting…";
  }
})();
