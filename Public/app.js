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

  // Live pages. One EventSource per page feeds both the dashboard's operations panel and the
  // live regions: parts of a page marked `data-live-region` that follow the feed. On an event a
  // region listens to (`data-live-on`), the page fetches its own address again and swaps in the
  // fresh regions, so rows and counts come from the server as rendered for this viewer, with
  // the same access checks; without scripts the page is simply the one rendered at load.
  var feed = document.querySelector("[data-live-feed]");
  var regions = Array.prototype.slice.call(document.querySelectorAll("[data-live-region]"));
  var sourcePath = feed ? feed.getAttribute("data-live-feed") : regions.length ? regions[0].getAttribute("data-live-source") : null;
  if (sourcePath && window.EventSource) {
    var source = liveSource(sourcePath);
    var refresh = regions.length ? liveRegions(regions) : null;
    var followed = {};
    regions.forEach(function (region) {
      (region.getAttribute("data-live-on") || "").split(/\s+/).forEach(function (type) {
        if (type && !followed[type]) {
          followed[type] = true;
          source.addEventListener(type, function () { refresh(300); });
        }
      });
    });
    if (feed) operationsPanel(feed, source);
    // `reset`: the server no longer holds what was missed. Fresh regions, or a fresh page.
    source.addEventListener("reset", function () {
      if (refresh) refresh(0); else window.location.reload();
    });
    // Events between the page's rendering and the stream's opening (or while it was down) are
    // not replayed: look once more each time the stream opens.
    if (refresh) source.addEventListener("open", function () { refresh(0); });
    source.connect();
  }

  // An EventSource that also comes back after a refusal. EventSource reconnects by itself
  // after a dropped connection (resuming with Last-Event-ID) but gives up on an answer that is
  // not a stream: 429 while the user holds too many streams (a page just left keeps its stream
  // until the server's next heartbeat), or the sign-in page once the session ended.
  function liveSource(path) {
    var listeners = [];
    var connect = function () {
      var current = new EventSource(path);
      listeners.forEach(function (listener) { current.addEventListener(listener[0], listener[1]); });
      current.addEventListener("error", function () {
        if (current.readyState === EventSource.CLOSED) window.setTimeout(connect, 30000);
      });
    };
    return {
      addEventListener: function (type, handler) { listeners.push([type, handler]); },
      connect: connect
    };
  }

  // The dashboard's live operations panel: newest event first, the last 50 kept. Each row
  // links to what it is about, through the paths the server lists in `data-live-links` for
  // this viewer; EventSource reconnects by itself and resumes with Last-Event-ID.
  function operationsPanel(feed, source) {
    var rows = feed.querySelector("[data-live-rows]");
    var status = feed.querySelector("[data-live-status]");
    var links = {};
    try { links = JSON.parse(feed.getAttribute("data-live-links") || "{}"); } catch (error) { links = {}; }
    var kinds = {
      "order.created": { subject: "order", label: function (d) { return "Order " + d.orderId + " submitted"; } },
      "order.status_changed": { subject: "order", label: function (d) { return "Order " + d.orderId + " " + String(d.status || "").toLowerCase(); } },
      "conflict.opened": { subject: "conflict", label: function (d) { return "Conflict opened on " + d.collection + "/" + d.recordId; } },
      "conflict.resolved": { subject: "conflict", label: function (d) { return "Conflict resolved on " + d.collection + "/" + d.recordId; } },
      "record.changed": { subject: "record", label: function (d) { return "Record " + d.collection + "/" + d.recordId + " changed"; } },
      "device.synced": { subject: "device", label: function (d) { return "Device " + d.deviceId + " synced"; } },
      "attachment.completed": { subject: "record", label: function (d) { return "Attachment " + (d.attId || "") + " uploaded"; } },
      "settings.changed": { subject: "settings", label: function () { return "Settings changed"; } }
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
      row.appendChild(document.createTextNode(" "));
      // textContent, never innerHTML: ids come from devices.
      var label = kinds[type].label(data);
      var href = fillPath(links[kinds[type].subject], data);
      if (href) {
        var link = document.createElement("a");
        link.href = href;
        link.textContent = label;
        row.appendChild(link);
      } else {
        row.appendChild(document.createTextNode(label));
      }
      rows.insertBefore(row, rows.firstChild);
      while (rows.children.length > 50) rows.removeChild(rows.lastChild);
    };
    Object.keys(kinds).forEach(function (type) {
      source.addEventListener(type, function (event) { show(type, event); });
    });
    source.addEventListener("open", function () { status.textContent = "Connected. New events appear here as they happen."; });
    source.addEventListener("error", function () { status.textContent = "Connection lost; reconnecting…"; });
    status.textContent = "Connecting…";
  }

  // A path template from the server with each `{name}` replaced by the event's field, encoded
  // as one path segment; null when a field is missing, or is "." or ".." (which a browser
  // would resolve as a step up the path, not as an id).
  function fillPath(template, data) {
    if (!template) return null;
    var complete = true;
    var path = template.replace(/\{(\w+)\}/g, function (placeholder, name) {
      var value = data[name];
      if (typeof value !== "string" || value === "" || value === "." || value === "..") {
        complete = false;
        return "";
      }
      return encodeURIComponent(value);
    });
    return complete ? path : null;
  }

  // Returns `refresh(delay)`: fetch this page again after `delay` ms and swap in its regions.
  // Bursts coalesce: at most one fetch runs, and events during it lead to one more, a second later.
  function liveRegions(regions) {
    var timer = null;
    var running = false;
    var again = false;
    var announcer = document.createElement("p");
    announcer.className = "visually-hidden";
    announcer.setAttribute("aria-live", "polite");
    (document.querySelector("main") || document.body).appendChild(announcer);
    // What the server last sent for each region: an unchanged region is left alone.
    var rendered = {};
    regions.forEach(function (region) { rendered[region.getAttribute("data-live-region")] = region.innerHTML; });

    var run = function () {
      timer = null;
      running = true;
      again = false;
      fetch(window.location.href, { headers: { Accept: "text/html" }, credentials: "same-origin" })
        .then(function (response) {
          // A redirect means the session ended (to the sign-in page): keep what is shown.
          if (!response.ok || response.redirected) throw new Error("status " + response.status);
          return response.text();
        })
        .then(function (html) {
          var fresh = new DOMParser().parseFromString(html, "text/html");
          regions.forEach(function (region) {
            var name = region.getAttribute("data-live-region");
            var replacement = Array.prototype.slice.call(fresh.querySelectorAll("[data-live-region]"))
              .filter(function (candidate) { return candidate.getAttribute("data-live-region") === name; })[0];
            if (!replacement || replacement.innerHTML === rendered[name]) return;
            rendered[name] = replacement.innerHTML;
            swap(region, replacement, announcer);
          });
        })
        .catch(function () { /* the next event or reconnection tries again */ })
        .then(function () {
          running = false;
          if (again) schedule(1000);
        });
    };
    var schedule = function (delay) {
      if (running) { again = true; return; }
      if (timer === null) timer = window.setTimeout(run, delay);
    };
    return schedule;
  }

  // Replaces the content of `region` with that of `replacement`, keeping what the person
  // was doing: ticked boxes stay ticked, focus stays on the same link or control, and rows
  // that were not there before are marked (`live-added`) so they stand out for a moment.
  function swap(region, replacement, announcer) {
    var before = rowKeys(region);
    var ticked = {};
    region.querySelectorAll("input[type=checkbox]").forEach(function (box) { ticked[controlKey(box)] = box.checked; });
    var focused = region.contains(document.activeElement) ? controlKey(document.activeElement) : null;
    var heading = region.querySelector("h2");
    var headingText = heading ? heading.textContent : "";

    while (region.firstChild) region.removeChild(region.firstChild);
    Array.prototype.slice.call(replacement.childNodes).forEach(function (node) {
      region.appendChild(document.importNode(node, true));
    });

    region.querySelectorAll("input[type=checkbox]").forEach(function (box) {
      var key = controlKey(box);
      if (Object.prototype.hasOwnProperty.call(ticked, key)) box.checked = ticked[key];
    });
    region.querySelectorAll("tbody tr").forEach(function (row) {
      if (!before[rowKey(row)]) row.classList.add("live-added");
    });
    if (focused !== null) {
      var target = Array.prototype.slice.call(region.querySelectorAll("a[href], button, input, select, textarea"))
        .filter(function (control) { return controlKey(control) === focused; })[0];
      if (!target) {
        // What had focus left the page (a settled row): keep focus in the region, not lost.
        target = region;
        region.setAttribute("tabindex", "-1");
      }
      target.focus({ preventScroll: true });
    }
    heading = region.querySelector("h2");
    if (heading && heading.textContent !== headingText) announcer.textContent = heading.textContent;
  }

  // A row is known by the first link in it (the record, order or conflict it shows).
  function rowKey(row) {
    var link = row.querySelector("a[href]");
    return link ? link.getAttribute("href") : row.textContent;
  }

  function rowKeys(region) {
    var rows = region.querySelectorAll("tbody tr");
    var keys = {};
    rows.forEach(function (row) { keys[rowKey(row)] = true; });
    return keys;
  }

  // The same control in the old and the fresh region: by id, link target, or name and value.
  function controlKey(element) {
    if (element.id) return "#" + element.id;
    if (element.tagName === "A") return "a " + element.getAttribute("href");
    return element.tagName + " " + (element.getAttribute("name") || "") + "=" + (element.getAttribute("value") || "") + " " + element.textContent;
  }
})();
