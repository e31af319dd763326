// Optional improvements; every page works without them.
document.addEventListener("DOMContentLoaded", function () {
  var slider = document.querySelector("form.stepper input[type=range]");
  if (slider) {
    var label = document.getElementById("at-label");
    slider.addEventListener("input", function () { if (label) label.textContent = slider.value; });
    slider.addEventListener("change", function () { slider.form.submit(); });
  }
});
