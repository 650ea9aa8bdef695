// Progressive enhancement of the proposal editor; everything works without it.
// 1. Warn before leaving the page with unsaved changes.
// 2. "Check without saving" refreshes the checklist panel in place instead of reloading;
//    the server checks exactly the fields posted, invalid ones included.
// 3. Once the form changes after a check, the panel says it is out of date, and a
//    live region tells screen-reader users (once per change, not per keystroke).
//    A check also brings each field's own error message up to date: a message from an
//    earlier save about a value no longer in the field is removed, a new one is shown;
//    and it marks the lines its findings point at under their fields, as a save does.
// 4. A finding's link to a line ("2.1 Syntactic Structure: ABNF, line 2, column 37") puts the
//    cursor at that line and column (see below).
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

  // The field errors beside the inputs must say what the panel says, never an older answer.
  function syncFieldErrors(panel) {
    var current = {};
    panel.querySelectorAll(".field-errors li").forEach(function (item) {
      var link = item.querySelector("a[href^='#id_']");
      if (!link) return;
      var text = item.textContent, label = link.textContent;
      current[link.getAttribute("href").slice(1)] = text.slice(text.indexOf(label) + label.length + 1).trim();
    });
    form.querySelectorAll(".field").forEach(function (box) {
      var input = box.querySelector("input[id^='id_'], textarea[id^='id_'], select[id^='id_']");
      if (!input) return;
      var list = box.querySelector("ul.errors"), message = current[input.id];
      if (message === undefined) {
        if (list) list.remove();
        box.classList.remove("has-error");
        if (!input.classList.contains("marked-line")) input.removeAttribute("aria-invalid");
        return;
      }
      if (!list) {
        list = document.createElement("ul");
        list.className = "errors";
        list.id = input.id + "_errors";
        box.appendChild(list);
      }
      list.textContent = "";
      var entry = document.createElement("li");
      entry.textContent = message;
      list.appendChild(entry);
      box.classList.add("has-error");
      input.setAttribute("aria-invalid", "true");
    });
  }

  // The lines the fresh findings point at (a grammar's line, an example), under their fields, each field
  // marked invalid: what the page shows after a save, from the check's own answer.
  function markLines(panel) {
    var fresh = panel.querySelector("template.fresh-line-marks");
    if (!fresh) return;
    fresh.content.querySelectorAll("[data-field]").forEach(function (holder) {
      var box = document.getElementById("field-" + holder.dataset.field);
      var input = document.getElementById("id_" + holder.dataset.field);
      var list = holder.querySelector("ol.line-marks");
      if (!box || !input || !list) return;
      box.parentNode.insertBefore(document.importNode(list, true), box.nextSibling);
      input.setAttribute("aria-invalid", "true");
    });
  }

  // A reply typed in a review thread is not a change to the draft (its buttons send the form too).
  function edited(event) {
    if (event.target.form !== form || event.target.closest(".thread-reply")) return;
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
        // Line marks (the page's and those placed by a finding's link) belong to the previous answer.
        form.querySelectorAll(".line-marks").forEach(function (mark) { mark.remove(); });
        form.querySelectorAll(".marked-line").forEach(function (field) {
          field.classList.remove("marked-line");
          field.removeAttribute("aria-invalid");
        });
        if (fresh) { syncFieldErrors(fresh); markLines(fresh); announce(summary(fresh)); }
      })
      .catch(function (error) { if (error !== "busy") form.submit(); })
      .finally(function () {
        var fresh = document.getElementById("workbench");
        if (fresh) fresh.removeAttribute("aria-busy");
      });
  });
  // 4. A finding's link to a line and column (a.go-to, places.finding_place) puts the cursor there and marks
  //    the field (aria-invalid and a visible marker) instead of only scrolling to it.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a.go-to[data-field]");
    if (!link) return;
    var field = document.getElementById(link.dataset.field);
    if (!field || typeof field.setSelectionRange !== "function") return;
    event.preventDefault();
    var line = parseInt(link.dataset.line, 10) || 1, column = parseInt(link.dataset.column, 10) || 1;
    var lines = field.value.split("\n"), offset = 0;
    for (var i = 0; i < Math.min(line - 1, lines.length); i++) offset += lines[i].length + 1;
    offset += Math.min(column - 1, (lines[line - 1] || "").length);
    field.focus();
    field.setSelectionRange(offset, offset);
    field.setAttribute("aria-invalid", "true");
    field.classList.add("marked-line");
    field.dataset.markedLine = String(line);
    var lineHeight = parseFloat(getComputedStyle(field).lineHeight) || 18;
    field.scrollTop = Math.max(0, (line - 3) * lineHeight);
    // The visible marker: the line itself, under the field, as the page shows it without script.
    var marker = field.parentNode.querySelector(".line-marks.go-to-mark");
    if (!marker) {
      marker = document.createElement("ol");
      marker.className = "line-marks go-to-mark";
      marker.setAttribute("aria-label", "The line the finding is about");
      field.parentNode.insertBefore(marker, field.nextSibling);
    }
    marker.textContent = "";
    var item = document.createElement("li"), code = document.createElement("code");
    item.className = "marked";
    item.appendChild(document.createTextNode("▶ Line " + line + ", column " + column + ": "));
    code.textContent = lines[line - 1] || "";
    item.appendChild(code);
    marker.appendChild(item);
  });
  window.addEventListener("beforeunload", function (event) {
    if (dirty) { event.preventDefault(); event.returnValue = ""; }
  });
})();
