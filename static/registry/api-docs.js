/* Swagger UI's controls that axe-core finds unnamed or misnamed (WCAG 2.2, 4.1.2 and 2.5.3), named as they
   appear: Swagger UI draws them when a panel or the Authorize dialog opens, so each new node is looked at. */
(function () {
  "use strict";
  function name(root) {
    root.querySelectorAll(".close-modal:not([aria-label])").forEach(function (button) {
      button.setAttribute("aria-label", "Close");
    });
    root.querySelectorAll("button[aria-label='Apply credentials']").forEach(function (button) {
      // The visible word must be part of the accessible name (2.5.3 Label in Name).
      button.setAttribute("aria-label", button.textContent.trim() + ": apply credentials");
    });
  }
  new MutationObserver(function () { name(document); })
    .observe(document.documentElement, {childList: true, subtree: true});
  name(document);
})();
