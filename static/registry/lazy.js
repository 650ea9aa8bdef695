// Panels loaded when opened: <details data-lazy-url="…?fragment=1"> holds a link to the
// same content as a page of its own, which is what readers without JavaScript follow.
// Opening the panel fetches the fragment once and puts it in place of the link; if the
// fetch fails the link stays, so nothing is lost. Panels replaced later (the edit page's
// check panel) are handled too: the listener sits on the document.
(function () {
  "use strict";
  function load(panel) {
    if (panel.dataset.lazyState) return;
    var body = panel.querySelector(".lazy-body");
    if (!body || !window.fetch) return;
    panel.dataset.lazyState = "loading";
    panel.setAttribute("aria-busy", "true");
    fetch(panel.dataset.lazyUrl, {credentials: "same-origin", headers: {"X-Requested-With": "fetch"}})
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.text();
      })
      .then(function (html) {
        body.innerHTML = html;
        panel.dataset.lazyState = "loaded";
      })
      .catch(function () { delete panel.dataset.lazyState; })
      .finally(function () { panel.removeAttribute("aria-busy"); });
  }
  document.addEventListener("toggle", function (event) {
    var panel = event.target;
    if (panel.matches && panel.matches("details[data-lazy-url]") && panel.open) load(panel);
  }, true);
  document.querySelectorAll("details[data-lazy-url][open]").forEach(load);
})();
