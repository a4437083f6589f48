/// The dashboard's style sheet and script, served from the binary. The
/// script is a file of its own (not inline) so the pages' Content-Security-Policy
/// can forbid inline scripts: an injected `<script>` in a document's text would not run.
enum Assets {
    static let css = """
        body{font-family:system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
        header{display:flex;gap:1.5em;align-items:center;padding:.6em 1.2em;background:#263238;color:#fff}
        header a{color:#fff;text-decoration:none;margin-right:1em}.brand{font-weight:bold}
        .who{margin-left:auto}.inline{display:inline;margin-left:.6em}
        main{padding:1em 1.5em;max-width:1720px}section{margin-bottom:2em}
        .plots{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start}.plots>section{flex:0 1 800px;min-width:0;max-width:100%}
        table{border-collapse:collapse;background:#fff}td,th{border:1px solid #ddd;padding:.3em .6em;text-align:left}
        .num{text-align:right}.error{color:#b00020}.alert{color:#b00020}.muted{color:#777}.on{font-weight:bold}
        form.login{display:flex;flex-direction:column;gap:.8em;max-width:24em}form.login input{width:100%}form.login input[type=checkbox]{width:auto;margin-right:.5em}
        svg{max-width:100%;height:auto;background:#fff}circle.new{stroke:#d62728;stroke-width:2}
        circle.live{fill:#1f77b4;stroke:#fff;stroke-width:2}polyline.live-trail{fill:none;stroke:#1f77b4;stroke-width:2;stroke-dasharray:4 3;opacity:.7}
        text.live-label{font-size:13px;fill:#0d47a1;paint-order:stroke;stroke:#fff;stroke-width:3px}
        .stale{opacity:.35}
        ul.legend{list-style:none;padding:0;margin:.4em 0;display:flex;flex-wrap:wrap;gap:.3em 1.2em;font-size:.9em}
        .swatch{display:inline-block;width:1.4em;height:.35em;vertical-align:middle;margin-right:.4em}svg.sample{vertical-align:middle;margin-right:.4em;background:none}
        #issued-token{white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-all;background:#fff;border:1px solid #ddd;padding:.5em}
        .pager a{margin:0 .8em}
        .swatch.diamond{width:.7em;height:.7em;background:#fdd835;border:1px solid #263238;transform:rotate(45deg)}
        .survey{display:grid;grid-template-columns:minmax(0,820px) minmax(16em,26em);gap:1.5em;align-items:start}
        #survey-wrap svg{cursor:crosshair}.survey-form{display:flex;flex-direction:column;gap:.5em;margin-bottom:1.2em}
        .survey-form h2{font-size:1.05em;margin:0}.key{display:inline-block;width:.9em;height:.9em;vertical-align:middle}
        .unsurveyed-key{background:rgba(255,183,77,.45)}.weak-key{background:rgba(214,39,40,.5)}
        #survey-refusal,#survey-status .error{font-weight:bold}progress{width:100%}circle.target{fill:#2e7d32;stroke:#fff;stroke-width:2}
        polyline.route{fill:none;stroke:#2e7d32;stroke-width:2.5;stroke-dasharray:6 4}circle.pending{fill:none;stroke:#d62728;stroke-width:2}
        .stopped-banner{background:#b00020;color:#fff;font-weight:bold;padding:.7em 1em;border-radius:4px;max-width:1230px}
        #survey-wrap.stopped svg{cursor:not-allowed;opacity:.55}
        #network-heatmap svg{max-width:min(100%,640px)}.switch a{margin-right:.5em}a.bucket-link:hover rect.range{fill-opacity:.75}a.bucket-link:hover rect.hit{fill:#e3f2fd;fill-opacity:.6}
        """

    static let js = """
        (function () {
          'use strict';
          var select = document.getElementById('tx');
          if (select) select.addEventListener('change', function () { select.form.submit(); });
          var wrap = document.getElementById('floor-wrap');
          if (!wrap || !window.EventSource) return;
          var svg = wrap.querySelector('svg');
          var layer = svg && svg.querySelector('g.points');
          if (!layer) return;
          var count = document.getElementById('point-count');
          var live = document.getElementById('live');
          var url = '/_dashboard/events?map=' + encodeURIComponent(wrap.dataset.map) +
            '&since=' + encodeURIComponent(wrap.dataset.since);
          var source = new EventSource(url);
          source.addEventListener('open', function () { live.textContent = 'live'; });
          source.addEventListener('error', function () { live.textContent = 'reconnecting'; });
          source.addEventListener('point', function (event) {
            var p = JSON.parse(event.data);
            var known = layer.querySelectorAll('circle.point');
            for (var i = 0; i < known.length; i++) if (known[i].getAttribute('data-id') === p.id) return;
            var left = +svg.dataset.left, top = +svg.dataset.top, scale = +svg.dataset.scale;
            var c = document.createElementNS('http://www.w3.org/2000/svg', 'circle');
            c.setAttribute('class', 'point new');
            c.setAttribute('data-id', p.id);
            c.setAttribute('cx', (left + p.x * scale).toFixed(1));
            c.setAttribute('cy', (top + p.y * scale).toFixed(1));
            c.setAttribute('r', '4');
            c.setAttribute('fill', '#d62728');
            var title = document.createElementNS('http://www.w3.org/2000/svg', 'title');
            title.textContent = p.id + ' (' + p.owner + ')';
            c.appendChild(title);
            layer.appendChild(c);
            count.textContent = String(layer.querySelectorAll('circle.point').length);
            if (p.session) extendTrack(p.session, c.getAttribute('cx') + ',' + c.getAttribute('cy'));
            fresh[p.id] = true;
            refreshSoon();
          });
          // A point is drawn at once, then every figure of the page (counts,
          // floor, legend, heatmap, coverage) is taken from one new answer of
          // the server, so they agree as a reload would have them.
          var fresh = {}, timer = null, fetching = false, again = false;
          function refreshSoon() {
            if (!timer) timer = setTimeout(refresh, 300);
          }
          function refresh() {
            timer = null;
            if (fetching) { again = true; return; }
            fetching = true;
            fetch(location.href, { credentials: 'same-origin', headers: { 'Accept': 'text/html' } })
              .then(function (answer) {
                if (!answer.ok) throw new Error('the page answered ' + answer.status);
                return answer.text();
              })
              .then(function (text) { replaceFigures(new DOMParser().parseFromString(text, 'text/html')); })
              // A failed look (the server stopping, a session ended) waits for the next point.
              .catch(function () {})
              .then(function () {
                fetching = false;
                if (again) { again = false; refreshSoon(); }
              });
          }
          function replaceFigures(page) {
            var newWrap = page.getElementById('floor-wrap'), newSvg = newWrap && newWrap.querySelector('svg');
            if (!newSvg) return;
            newSvg = document.importNode(newSvg, true);
            // Published positions stay: they come from the stream, not the page.
            ['polyline.live-trail', 'circle.live', 'text.live-label'].forEach(function (selector) {
              svg.querySelectorAll(selector).forEach(function (element) { newSvg.appendChild(element); });
            });
            svg.parentNode.replaceChild(newSvg, svg);
            svg = newSvg;
            layer = svg.querySelector('g.points');
            layer.querySelectorAll('circle.point').forEach(function (c) {
              if (fresh[c.getAttribute('data-id')]) { c.setAttribute('class', 'point new'); c.setAttribute('fill', '#d62728'); }
            });
            ['point-count', 'walk-count', 'walk-legend', 'heatmap', 'coverage', 'coverage-note'].forEach(function (id) {
              var mine = document.getElementById(id), theirs = page.getElementById(id);
              if (mine && theirs) mine.innerHTML = theirs.innerHTML;
            });
            var options = page.getElementById('tx');
            if (select && options) select.innerHTML = options.innerHTML;
            wrap.dataset.refreshed = newWrap.dataset.since;
          }
          // A published position (fprint track --publish) moves its publisher's
          // marker, labelled with its name and how long ago it was heard, and
          // extends a trail of its last 300 positions. Silent for a minute the
          // marker fades; for ten, or gone to another floor, or stopped, it goes.
          var heard = {};
          source.addEventListener('position', function (event) {
            var p = JSON.parse(event.data);
            var left = +svg.dataset.left, top = +svg.dataset.top, scale = +svg.dataset.scale;
            var cx = (left + p.x * scale).toFixed(1), cy = (top + p.y * scale).toFixed(1);
            var marker = byPublisher('circle.live', p.publisher), trail = byPublisher('polyline.live-trail', p.publisher);
            var label = byPublisher('text.live-label', p.publisher);
            if (!marker) {
              trail = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
              trail.setAttribute('class', 'live-trail');
              trail.setAttribute('data-publisher', p.publisher);
              trail.setAttribute('points', '');
              marker = document.createElementNS('http://www.w3.org/2000/svg', 'circle');
              marker.setAttribute('class', 'live');
              marker.setAttribute('data-publisher', p.publisher);
              marker.setAttribute('r', '7');
              marker.appendChild(document.createElementNS('http://www.w3.org/2000/svg', 'title'));
              label = document.createElementNS('http://www.w3.org/2000/svg', 'text');
              label.setAttribute('class', 'live-label');
              label.setAttribute('data-publisher', p.publisher);
              svg.appendChild(trail);
              svg.appendChild(marker);
              svg.appendChild(label);
            }
            heard[p.publisher] = Date.now() - (p.age_s || 0) * 1000;
            marker.setAttribute('cx', cx);
            marker.setAttribute('cy', cy);
            label.setAttribute('x', (+cx + 10).toFixed(1));
            label.setAttribute('y', (+cy - 10).toFixed(1));
            marker.firstChild.textContent = p.publisher + ' at ' + p.time +
              (p.accuracy_m === null ? '' : ' (± ' + p.accuracy_m.toFixed(1) + ' m)');
            var points = (trail.getAttribute('points') + ' ' + cx + ',' + cy).trim().split(' ');
            trail.setAttribute('points', points.slice(-300).join(' '));
            age();
          });
          source.addEventListener('left', function (event) { remove(JSON.parse(event.data).publisher); });
          function remove(publisher) {
            ['circle.live', 'polyline.live-trail', 'text.live-label'].forEach(function (selector) {
              var element = byPublisher(selector, publisher);
              if (element) element.parentNode.removeChild(element);
            });
            delete heard[publisher];
            age();
          }
          function age() {
            var now = Date.now(), walking = 0;
            Object.keys(heard).forEach(function (publisher) {
              var seconds = Math.max(0, Math.round((now - heard[publisher]) / 1000));
              if (seconds >= 600) { remove(publisher); return; }
              var stale = seconds >= 60;
              if (!stale) walking++;
              var label = byPublisher('text.live-label', publisher);
              label.textContent = publisher + ' · ' + (seconds < 60 ? seconds + ' s' : Math.floor(seconds / 60) + ' min') + ' ago';
              ['circle.live', 'polyline.live-trail', 'text.live-label'].forEach(function (selector) {
                byPublisher(selector, publisher).classList.toggle('stale', stale);
              });
            });
            document.getElementById('live-count').textContent = String(walking);
          }
          setInterval(age, 1000);
          function byPublisher(selector, publisher) {
            var found = svg.querySelectorAll(selector);
            for (var i = 0; i < found.length; i++) if (found[i].getAttribute('data-publisher') === publisher) return found[i];
            return null;
          }
          // A walk's point continues its line (documents arrive in the order they were stored).
          function extendTrack(session, xy) {
            var tracks = svg.querySelector('g.tracks');
            var lines = tracks.querySelectorAll('polyline.track');
            for (var i = 0; i < lines.length; i++) {
              if (lines[i].getAttribute('data-session') === session) {
                lines[i].setAttribute('points', lines[i].getAttribute('points') + ' ' + xy);
                return;
              }
            }
            var line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
            line.setAttribute('class', 'track');
            line.setAttribute('data-session', session);
            line.setAttribute('points', xy);
            tracks.appendChild(line);
            var walks = document.getElementById('walk-count');
            walks.textContent = String(tracks.querySelectorAll('polyline.track').length);
          }
        })();
        """
}
