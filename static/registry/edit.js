// Progressive enhancement of the proposal editor; everything works without it.
// 1. Warn before leaving the page with unsaved changes.
// 2. "Check without saving" refreshes the checklist panel in place instead of reloading;
//    the server checks exactly the fields posted, invalid ones included.
// 3. Once the form changes after a check, the panel says it is out of date, and a
//    live region tells screen-reader users (once per change, not per keystroke).
(function () {
  "use strict";
  var form = document.getElementById("proposal-form");
  if (!form) return;
  var announcer = document.getElementById("check-announcer");
  var dirty = false;
  var stale = false;

  function announce(text) {
    if (announcer) announcer.textContent = text;
  }

  function markStale() {
    var panel = document.getElementById("workbench");
    if (stale || !panel) return;
    stale = true;
    panel.classList.add("stale");
    var note = panel.querySelector(".check-stale");
    if (note) note.hidden = false;
    announce("The automated review is out of date: the form has changed since it was checked.");
  }

  function summary(panel) {
    var when = panel.querySelector(".check-when");
    var count = function (status) { return panel.querySelectorAll(".finding." + status).length; };
    return (when ? when.textContent.trim() : "Checked") + ": " + count("fail") + " failing, " +
      count("warning") + " warnings.";
  }

  // Replies to review threads sit inside the form's sections but belong to their own forms.
  function edited(event) {
    if (event.target.form !== form) return;
    dirty = true;
    markStale();
  }
  form.addEventListener("input", edited);
  form.addEventListener("change", edited);
  form.addEventListener("submit", function (event) {
    var intent = event.submitter && event.submitter.value;
    if (intent !== "check" || !window.fetch) { dirty = false; return; }
    event.preventDefault();
    var data = new FormData(form);
    data.set("intent", "check");
    var panel = document.getElementById("workbench");
    panel.setAttribute("aria-busy", "true");
    announce("Checking…");
    fetch(form.dataset.checkUrl, {method: "POST", body: data, credentials: "same-origin",
                                  headers: {"X-Requested-With": "fetch"}})
      .then(function (response) {
        if (response.status === 429) {
          // Too many checks at once: say so here and keep the page as typed (no form post).
          var wait = response.headers.get("Retry-After") || "a few";
          var text = "Too many checks at once; nothing was checked. Try again in " + wait + " seconds.";
          var notice = panel.querySelector(".busy-notice") || document.createElement("p");
          notice.className = "notice busy-notice";
          notice.textContent = text;
          panel.insertBefore(notice, panel.firstChild);
          announce(text);
          throw "busy";
        }
        if (!response.ok) throw new Error(response.status);
        return response.text();
      })
      .then(function (html) {
        panel.outerHTML = html;
        stale = false;
        var fresh = document.getElementById("workbench");
        if (fresh) announce(summary(fresh));
      })
      .catch(function (error) { if (error !== "busy") form.submit(); })
      .finally(function () {
        var fresh = document.getElementById("workbench");
        if (fresh) fresh.removeAttribute("aria-busy");
      });
  });
  window.addEventListener("beforeunload", function (event) {
    if (dirty) { event.preventDefault(); event.returnValue = ""; }
  });
})();
