/* The API documentation pages (Swagger UI, ReDoc), made to pass axe-core with its best practices:
   1. Swagger UI's controls that axe-core finds unnamed or misnamed (WCAG 2.2, 4.1.2 and 2.5.3), and its
      responses' regions (all alike), named as they appear: Swagger UI draws them when a panel or the
      Authorize dialog opens, so each new node is looked at.
   2. Swagger UI's layout ("RegistryLayout", chosen in settings.SPECTACULAR_SETTINGS) is its BaseLayout with the
      operations in a <div>: BaseLayout draws them in a <main> of its own, a second main inside the page's one.
   3. Headings never skip a level: both UIs draw headings at fixed levels (Swagger UI's tags are h3 under the
      title's h1, ReDoc's "Responses" and "Request Body schema" h5 under an operation's h2); a heading deeper
      than the one before it plus one is given that level with aria-level, which assistive technology reads. */
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
    // Each operation's responses are a live region: named after the operation, so no two look alike.
    root.querySelectorAll("table.responses-table[role=region]:not([aria-label])").forEach(function (table) {
      var block = table.closest(".opblock"), method = block && block.querySelector(".opblock-summary-method");
      var path = block && block.querySelector(".opblock-summary-path");
      if (method && path) table.setAttribute("aria-label", "Responses of " + method.textContent.trim() + " " +
                                                            path.textContent.trim());
    });
  }

  function levels(root) {
    var previous = 0;
    root.querySelectorAll("h1, h2, h3, h4, h5, h6").forEach(function (heading) {
      if (!heading.getClientRects().length) return;  // not shown: not read either
      var own = parseInt(heading.tagName.slice(1), 10);
      var level = previous && own > previous + 1 ? previous + 1 : own;
      if (level !== own) {
        if (heading.getAttribute("aria-level") !== String(level)) heading.setAttribute("aria-level", String(level));
      } else if (heading.hasAttribute("aria-level")) {
        heading.removeAttribute("aria-level");
      }
      previous = level;
    });
  }

  var pending = false;
  function tidy() {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () {
      pending = false;
      name(document);
      levels(document);
    });
  }
  new MutationObserver(tidy).observe(document.documentElement, {childList: true, subtree: true, attributes: true,
                                                                 attributeFilter: ["class", "style", "hidden"]});
  tidy();

  window.registrySwaggerLayout = function (system) {
    var h = system.React.createElement;
    function RegistryLayout(props) {
      var get = props.getComponent, spec = props.specSelectors, errors = props.errSelectors;
      var Errors = get("errors", true), Row = get("Row"), Col = get("Col");
      var status = spec.loadingStatus(), loading = null;
      if (status === "loading") loading = h("div", {className: "loading"});
      else if (status === "failed") loading = h("h2", {className: "title"}, "Failed to load API definition.");
      else if (status === "failedConfig") {
        var error = errors.lastError();
        loading = h("h2", {className: "title"}, "Failed to load remote configuration. " +
                    (error ? error.get("message") : ""));
      } else if (!spec.specStr()) loading = h("h2", null, "No API definition provided.");
      if (loading) return h("div", {className: "swagger-ui"}, h("div", {className: "loading-container"}, loading));
      var servers = spec.servers(), schemes = spec.schemes();
      var hasServers = servers && servers.size, hasSchemes = schemes && schemes.size;
      var secured = !!spec.securityDefinitions();
      return h("div", {className: "swagger-ui"},
        h(get("SvgAssets"), null),
        h(get("VersionPragmaFilter"), {isSwagger2: spec.isSwagger2(), isOAS3: spec.isOAS3(), isOAS31: spec.isOAS31(),
                                       isOAS32: spec.isOAS32 ? spec.isOAS32() : false, alsoShow: h(Errors, null)},
          h(Errors, null),
          h(Row, {className: "information-container"}, h(Col, {mobile: 12}, h(get("InfoContainer", true), null))),
          hasServers || hasSchemes || secured ? h("div", {className: "scheme-container"},
            h(Col, {className: "schemes wrapper", mobile: 12},
              hasServers || hasSchemes ? h("div", {className: "schemes-server-container"},
                hasServers ? h(get("ServersContainer", true), null) : null,
                hasSchemes ? h(get("SchemesContainer", true), null) : null) : null,
              secured ? h(get("AuthorizeBtnContainer", true), null) : null)) : null,
          h(get("FilterContainer", true), null),
          h("div", {id: "operations", tabIndex: "-1", style: {outline: "none"}},
            h(Row, null, h(Col, {mobile: 12, desktop: 12}, h(get("operations", true), null))),
            spec.isOAS31() ? h(Row, {className: "webhooks-container"},
              h(Col, {mobile: 12, desktop: 12}, h(get("Webhooks", true), null))) : null,
            h(Row, null, h(Col, {mobile: 12, desktop: 12}, h(get("Models", true), null))))));
    }
    return {components: {RegistryLayout: RegistryLayout}};
  };
})();
