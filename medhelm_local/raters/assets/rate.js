// Keyboard shortcuts of the rating page: a digit rates the highlighted criterion and moves on; Enter saves; S skips.
(function () {
  "use strict";
  var form = document.getElementById("rating");
  if (!form) { return; }
  var criteria = Array.prototype.slice.call(form.querySelectorAll("fieldset.criterion"));
  var active = 0;

  function highlight(index) {
    active = Math.max(0, Math.min(index, criteria.length - 1));
    criteria.forEach(function (c, i) { c.classList.toggle("active", i === active); });
  }

  criteria.forEach(function (c, i) {
    c.addEventListener("click", function () { highlight(i); });
  });

  document.addEventListener("keydown", function (event) {
    if (event.target && (event.target.tagName === "TEXTAREA" || event.target.tagName === "INPUT" &&
        event.target.type !== "radio")) { return; }
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    if (/^[0-9]$/.test(event.key)) {
      var input = criteria[active].querySelector("input[value='" + event.key + "']");
      if (input) {
        input.checked = true;
        highlight(active + 1);
        event.preventDefault();
      }
    } else if (event.key === "Enter") {
      event.preventDefault();
      document.getElementById("save").click();
    } else if (event.key === "s" || event.key === "S") {
      event.preventDefault();
      document.getElementById("skip").click();
    }
  });
}());
