// Progressive enhancement of the proposal editor; everything works without it.
// 1. Warn before leaving the page with unsaved changes.
// 2. "Check without saving" refreshes the checklist panel in place instead of reloading.
(function () {
  "use strict";
  var form = document.getElementById("proposal-form");
  if (!form) return;
  var dirty = false;
  // Replies to review threads sit inside the form's sections but belong to their own forms.
  form.addEventListener("input", function (event) { if (event.target.form === form) dirty = true; });
  form.addEventListener("submit", function (event) {
    var intent = event.submitter && event.submitter.value;
    if (intent !== "check" || !window.fetch) { dirty = false; return; }
    event.preventDefault();
    var data = new FormData(form);
    data.set("intent", "check");
    var panel = document.getElementById("workbench");
    panel.setAttribute("aria-busy", "true");
    fetch(form.dataset.checkUrl, {method: "POST", body: data, credentials: "same-origin",
                                  headers: {"X-Requested-With": "fetch"}})
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.text();
      })
      .then(function (html) {
        panel.outerHTML = html;
      })
      .catch(function () { form.submit(); })
      .finally(function () {
        var fresh = document.getElementById("workbench");
        if (fresh) fresh.removeAttribute("aria-busy");
      });
  });
  window.addEventListener("beforeunload", function (event) {
    if (dirty) { event.preventDefault(); event.returnValue = ""; }
  });
})();
