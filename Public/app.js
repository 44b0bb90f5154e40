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
})();
