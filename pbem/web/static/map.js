// The map boards zoom and pan in place (templates/_map.html; without script the zoom
// links reload the page at ?zoom=N). A phone opens the map at the scale where its
// smallest text is 12 CSS px, centred on the viewer's own pieces (else on what changed
// since their last move); a desk keeps the map fitted to its column, which its board.css
// already makes readable. Pinch (two pointers), drag (one), ctrl + wheel, the buttons and
// the keys + - 0 on the focused map change it; the choice is kept per title on this
// device (localStorage), "fit" included. The readout says the scale as a player reads
// it: "100%" is the readable scale (a phone's first view), "fit" the whole map; a screen
// reader hears it once a zoom settles, not at each step of a pinch. The places list
// under the map is open where there is room for it (a desk), folded on a phone.
(function () {
  "use strict";
  var READABLE_PX = 12;
  var STEP = 1.25;
  var STORE = "pbem.map-zoom.";
  var SETTLED_MS = 700;  // the zoom is said this long after its last change
  var ROOMY = "(min-width: 1000px)";  // a desk: the places list opens

  // What the tools say, in the page's language (enhance.js's pageWord; English without).
  function word(key, english, parts) {
    if (window.pageWord) return window.pageWord(key, english, parts);
    Object.keys(parts || {}).forEach(function (name) {
      english = english.split("%(" + name + ")s").join(parts[name]);
    });
    return english;
  }

  function store(key, value) {
    try { window.localStorage.setItem(STORE + key, value); } catch (error) { /* private mode */ }
  }
  function stored(key) {
    try { return window.localStorage.getItem(STORE + key); } catch (error) { return null; }
  }
  var reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)");

  function setUp(frame) {
    if (frame.hasAttribute("data-map-ready")) return;
    frame.setAttribute("data-map-ready", "");
    var svg = frame.querySelector("svg.board");
    var box = svg && svg.viewBox && svg.viewBox.baseVal;
    if (!box || !box.width) return;
    var width = box.width, height = box.height;
    var key = frame.getAttribute("data-zoom-key") || "map";
    // The smallest text on the map, in the map's units: 12 px divided by it is the
    // scale (CSS px per unit) at which every text reads.
    var smallest = Infinity;
    Array.prototype.forEach.call(svg.querySelectorAll("text"), function (text) {
      var size = parseFloat(window.getComputedStyle(text).fontSize);
      if (size > 0 && size < smallest) smallest = size;
    });
    var readable = smallest === Infinity ? 1 : READABLE_PX / smallest;
    var most = Math.max(2, readable * 3);
    var fit = true, scale = 1;

    // The scale of the whole map across its column (what "fit" draws on a phone; a
    // desk's board.css may draw "fit" wider, never narrower than it reads).
    function roomScale() {
      var room = frame.parentElement ? frame.parentElement.clientWidth : frame.clientWidth;
      return Math.min(room / width, most);
    }
    function fitScale() {
      var rect = svg.getBoundingClientRect();
      return fit && rect.width ? rect.width / width : roomScale();
    }
    function least() { return roomScale(); }

    // Tools: buttons in place of the links (which stay for pages without script).
    var links = frame.previousElementSibling && frame.previousElementSibling.querySelector(".map-zoom");
    var tools = document.createElement("span");
    tools.className = "map-zoom map-zoom-live";
    tools.setAttribute("role", "group");
    tools.setAttribute("aria-label", word("zoom_map", "Zoom the map"));
    function button(text, label, action) {
      var made = document.createElement("button");
      made.type = "button";
      made.className = "zoom-button";
      made.textContent = text;
      made.setAttribute("aria-label", label);
      made.addEventListener("click", action);
      tools.appendChild(made);
      return made;
    }
    var out = button("−", word("zoom_out", "Zoom out"), function () { animateTo(current() / STEP); });
    var shown = document.createElement("span");
    shown.className = "zoom-level";
    tools.appendChild(shown);
    // What a screen reader hears, once a zoom settles (the readout changes at each step).
    var said = document.createElement("span");
    said.className = "visually-hidden";
    said.setAttribute("aria-live", "polite");
    tools.appendChild(said);
    var into = button("+", word("zoom_in", "Zoom in"), function () { animateTo(current() * STEP); });
    var whole = button(word("zoom_fit", "Fit"), word("zoom_fit_whole", "Fit the whole map"), function () { setFit(); });
    whole.classList.add("zoom-fit");
    if (links) {
      links.hidden = true;
      links.parentNode.insertBefore(tools, links);
    } else {
      frame.parentNode.insertBefore(tools, frame);
    }
    frame.classList.add("map-live");

    function current() { return fit ? fitScale() : scale; }
    function clamp(value) { return Math.min(Math.max(value, least()), most); }
    // The scale in words: "fit", else a percentage of the readable scale.
    function level() { return fit ? word("zoom_level_fit", "fit") : Math.round(current() / readable * 100) + "%"; }
    var saying = null;
    function show(quiet) {
      var now = current();
      shown.textContent = level();
      shown.title = fit ? word("zoom_whole_title", "The whole map in its frame") :
        word("zoom_readable_title", "Every name on the map reads at 100%.");
      out.disabled = fit || now <= least() + 1e-6;
      into.disabled = !fit && now >= most - 1e-6;
      whole.disabled = fit;
      if (quiet) return;
      window.clearTimeout(saying);
      saying = window.setTimeout(function () {
        said.textContent = fit ? word("zoom_said_whole", "Map zoom: the whole map") :
          Math.abs(current() - readable) < 0.005 * readable ?
            word("zoom_said_readable", "Map zoom %(level)s, every name readable", { level: level() }) :
            word("zoom_said", "Map zoom %(level)s", { level: level() });
      }, SETTLED_MS);
    }
    function remember() { store(key, fit ? "fit" : scale.toFixed(4)); }

    // Draws the map at ``value`` CSS px per unit, keeping the map's point under the
    // frame's point (x, y) where it was (the frame's middle when not given).
    function zoomTo(value, x, y, keep) {
      var before = current();
      value = clamp(value);
      if (x === undefined) { x = frame.clientWidth / 2; y = frame.clientHeight / 2; }
      var ux = (frame.scrollLeft + x) / before, uy = (frame.scrollTop + y) / before;
      fit = false;
      scale = value;
      frame.classList.remove("zoom-1", "zoom-2", "zoom-3");
      frame.classList.add("zoom-free");
      // rounded up: never a hair under the scale (and its texts under 12 px)
      svg.setAttribute("width", Math.ceil(width * value));
      svg.setAttribute("height", Math.ceil(height * value));
      frame.scrollLeft = ux * value - x;
      frame.scrollTop = uy * value - y;
      show(opening);
      if (!keep) remember();
    }
    function setFit(keep) {
      fit = true;
      frame.classList.remove("zoom-free", "zoom-2", "zoom-3");
      frame.classList.add("zoom-1");
      svg.setAttribute("width", width);
      svg.setAttribute("height", height);
      show(opening);
      if (!keep) remember();
    }
    var animation = null;
    function animateTo(value) {
      if (animation) window.cancelAnimationFrame(animation);
      var from = current(), to = clamp(value);
      if (reduced && reduced.matches) { zoomTo(to); return; }
      var start = null;
      function step(time) {
        if (start === null) start = time;
        var done = Math.min(1, (time - start) / 160);
        zoomTo(from * Math.pow(to / from, done), undefined, undefined, done < 1);
        animation = done < 1 ? window.requestAnimationFrame(step) : null;
      }
      animation = window.requestAnimationFrame(step);
    }

    // Centres the view on the viewer's own pieces, else on the places that changed.
    function centre() {
      var seat = frame.getAttribute("data-viewer");
      var marked = seat ? svg.querySelectorAll("[data-seats~='" + seat + "']") : [];
      if (!marked.length) marked = svg.querySelectorAll(".changed");
      var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      Array.prototype.forEach.call(marked, function (element) {
        var b = (element.querySelector(".chip") || element).getBBox();
        x0 = Math.min(x0, b.x); y0 = Math.min(y0, b.y);
        x1 = Math.max(x1, b.x + b.width); y1 = Math.max(y1, b.y + b.height);
      });
      if (!marked.length) { x0 = x1 = width / 2; y0 = y1 = height / 2; }
      var s = current();
      // Their middle in the frame's middle; when they are wider (or taller) than the
      // frame, their start at its start, so that nothing is cut on both sides.
      function along(start, end, room) {
        return (end - start) * s <= room ? (start + end) / 2 * s - room / 2 : start * s - 8;
      }
      frame.scrollLeft = along(x0, x1, frame.clientWidth);
      frame.scrollTop = along(y0, y1, frame.clientHeight);
    }

    // First view: the scale kept for this title, else the page's ?zoom= level, else
    // fitted when that reads (a desk) or the readable scale (a phone).
    var opening = true;  // nothing is said of the first view
    var kept = stored(key), asked = parseInt(frame.getAttribute("data-level") || "1", 10);
    if (kept === "fit") setFit(true);
    else if (kept && parseFloat(kept) > 0) zoomTo(parseFloat(kept), 0, 0, true);
    else if (asked > 1) zoomTo(asked === 3 ? 1.5 : 1, 0, 0, true);
    else if (fitScale() + 1e-6 >= readable) setFit(true);
    else zoomTo(readable, 0, 0, true);
    centre();
    opening = false;

    // Pointers: one drags the map in its frame (and the page, past the map's top or
    // bottom), two pinch it. A drag is not a tap, so the place under it is not followed.
    var pointers = {}, dragged = false, pinch = null;
    function count() { return Object.keys(pointers).length; }
    function pair() {
      var ids = Object.keys(pointers), a = pointers[ids[0]], b = pointers[ids[1]];
      var rect = frame.getBoundingClientRect();
      return {
        distance: Math.max(1, Math.hypot(a.x - b.x, a.y - b.y)),
        x: (a.x + b.x) / 2 - rect.left - frame.clientLeft,
        y: (a.y + b.y) / 2 - rect.top - frame.clientTop,
      };
    }
    frame.addEventListener("pointerdown", function (event) {
      if (event.pointerType === "mouse" && event.button !== 0) return;
      pointers[event.pointerId] = { x: event.clientX, y: event.clientY, startX: event.clientX, startY: event.clientY };
      if (count() === 1) dragged = false;
      if (count() === 2) { pinch = pair(); pinch.scale = current(); dragged = true; }
    });
    frame.addEventListener("pointermove", function (event) {
      var pointer = pointers[event.pointerId];
      if (!pointer) return;
      var dx = event.clientX - pointer.x, dy = event.clientY - pointer.y;
      pointer.x = event.clientX;
      pointer.y = event.clientY;
      if (count() >= 2 && pinch) {
        var now = pair();
        zoomTo(pinch.scale * now.distance / pinch.distance, now.x, now.y, true);
        frame.scrollLeft -= now.x - pinch.x;
        frame.scrollTop -= now.y - pinch.y;
        pinch.x = now.x;
        pinch.y = now.y;
        return;
      }
      if (!dragged && Math.hypot(event.clientX - pointer.startX, event.clientY - pointer.startY) < 6) return;
      if (!dragged) {
        dragged = true;
        try { frame.setPointerCapture(event.pointerId); } catch (error) { /* gone */ }
      }
      frame.scrollLeft -= dx;
      var top = frame.scrollTop;
      frame.scrollTop -= dy;
      // What the map cannot take (it is at its top or bottom) scrolls the page, so a
      // finger on the map still gets past it.
      var left = dy - (top - frame.scrollTop);
      if (event.pointerType !== "mouse" && Math.abs(left) >= 1) window.scrollBy(0, -left);
    });
    function up(event) {
      if (!pointers[event.pointerId]) return;
      delete pointers[event.pointerId];
      if (pinch && count() < 2) { pinch = null; remember(); }
      if (count() === 1) {  // the finger left on the map drags from here
        var rest = pointers[Object.keys(pointers)[0]];
        rest.startX = rest.x; rest.startY = rest.y;
      }
    }
    frame.addEventListener("pointerup", up);
    frame.addEventListener("pointercancel", up);
    frame.addEventListener("click", function (event) {
      if (dragged) { event.preventDefault(); event.stopPropagation(); dragged = false; }
    }, true);
    frame.addEventListener("wheel", function (event) {
      if (!event.ctrlKey) return;  // a trackpad's pinch, or ctrl + wheel; else it scrolls
      event.preventDefault();
      var rect = frame.getBoundingClientRect();
      zoomTo(current() * Math.exp(-event.deltaY / 300),
        event.clientX - rect.left - frame.clientLeft, event.clientY - rect.top - frame.clientTop);
    }, { passive: false });
    frame.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.key === "+" || event.key === "=") animateTo(current() * STEP);
      else if (event.key === "-") animateTo(current() / STEP);
      else if (event.key === "0") setFit();
      else return;
      event.preventDefault();
    });
    var resized = null;
    window.addEventListener("resize", function () {
      window.clearTimeout(resized);
      resized = window.setTimeout(function () { if (!fit) zoomTo(scale, undefined, undefined, true); else show(true); }, 100);
    });
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll(".map-frame"), setUp);
    if (window.matchMedia && window.matchMedia(ROOMY).matches) {
      Array.prototype.forEach.call(document.querySelectorAll("details.map-places:not([data-opened])"),
        function (places) { places.open = true; places.setAttribute("data-opened", ""); });
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
  // A page that swaps its board in place (the history's steps) says so: the new map is set up.
  document.addEventListener("pbem:board-swapped", start);
})();
