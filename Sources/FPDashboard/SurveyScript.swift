/// The Survey page's script (a file of its own, as `app.js`, so the
/// Content-Security-Policy forbids inline scripts). A click on the plan is
/// turned into map units with the SVG's own transform, so the point is the
/// same whatever size the browser draws the plan at; the x and y boxes take
/// metres, as the plan's axes show, and are turned into map units with the
/// map's scale (the server takes map units). The page watches the dashboard
/// (its event stream and its polls): once the process stops, a banner says
/// so and what became of the job, and nothing can be started any more.
enum SurveyScript {
    static let js = """
        (function () {
          'use strict';
          var wrap = document.getElementById('survey-wrap');
          if (!wrap) return;
          var svg = wrap.querySelector('svg'), ns = 'http://www.w3.org/2000/svg';
          var left = +svg.dataset.left, top = +svg.dataset.top, scale = +svg.dataset.scale;
          var perUnit = +wrap.dataset.metersPerUnit || 1;
          var status = document.getElementById('survey-status'), progress = document.getElementById('survey-progress');
          // A refusal stays until the next action: the running job's updates go to the status box.
          var refusal = document.getElementById('survey-refusal'), banner = document.getElementById('survey-stopped');
          var xInput = document.getElementById('x'), yInput = document.getElementById('y');
          var buttons = [document.getElementById('measure'), document.getElementById('walk')];
          var route = document.getElementById('route'), polling = false, lastShown = 0;
          // The last job seen, and whether the dashboard stopped ('announced': it said so; 'unreachable': it went silent).
          var lastJob = null, stopped = null, source = null;

          function onPlan(x, y) { return [(left + x * scale).toFixed(1), (top + y * scale).toFixed(1)]; }
          function round(v) { return Math.round(v * 10) / 10; }
          function metres(units) { return String(Math.round(units * perUnit * 100) / 100); }
          function at(x, y) { return '(' + metres(x) + ' m, ' + metres(y) + ' m)'; }
          function busy(job) { return !!job && (job.state === 'running' || job.state === 'storing'); }
          function say(text, error) {
            status.textContent = '';
            var p = document.createElement('p');
            p.textContent = text;
            if (error) p.className = 'error';
            status.appendChild(p);
          }
          function refuse(text) { refusal.textContent = text; refusal.hidden = false; }
          function marker(cls, x, y, r) {
            var c = svg.querySelector('circle.' + cls);
            if (!c) { c = document.createElementNS(ns, 'circle'); c.setAttribute('class', cls); c.setAttribute('r', r); svg.appendChild(c); }
            var xy = onPlan(x, y);
            c.setAttribute('cx', xy[0]);
            c.setAttribute('cy', xy[1]);
            return c;
          }
          function clear(cls) { var c = svg.querySelector('circle.' + cls); if (c) c.parentNode.removeChild(c); }

          svg.addEventListener('click', function (event) {
            if (stopped) return;
            var pt = svg.createSVGPoint();
            pt.x = event.clientX;
            pt.y = event.clientY;
            var p = pt.matrixTransform(svg.getScreenCTM().inverse());
            var x = round((p.x - left) / scale), y = round((p.y - top) / scale);
            // The boxes show the click in metres; the click itself is sent in map units, unrounded by metres.
            xInput.value = metres(x);
            yInput.value = metres(y);
            post('measure', { map: wrap.dataset.map, x: x, y: y });
          });
          document.getElementById('point-form').addEventListener('submit', function (event) { event.preventDefault(); measure(); });
          document.getElementById('walk-form').addEventListener('submit', function (event) {
            event.preventDefault();
            if (route && route.value) post('walk', { scenario: route.value });
          });
          if (route) { route.addEventListener('change', drawRoute); drawRoute(); }

          function measure() {
            var x = parseFloat(xInput.value), y = parseFloat(yInput.value);
            if (!isFinite(x) || !isFinite(y)) { refuse('Type x and y in metres (as on the axes), or click the plan.'); return; }
            post('measure', { map: wrap.dataset.map, x: round(x / perUnit), y: round(y / perUnit) });
          }
          function drawRoute() {
            var line = svg.querySelector('polyline.route');
            if (!line) { line = document.createElementNS(ns, 'polyline'); line.setAttribute('class', 'route'); svg.appendChild(line); }
            var option = route.options[route.selectedIndex];
            var points = option ? option.getAttribute('data-points').split(' ') : [];
            line.setAttribute('points', points.filter(Boolean).map(function (xy) {
              var v = xy.split(','); return onPlan(+v[0], +v[1]).join(',');
            }).join(' '));
          }
          function post(action, fields) {
            if (stopped) return;
            fields.token = wrap.dataset.token;
            refusal.hidden = true;
            fetch('/_dashboard/survey/' + action, {
              method: 'POST', credentials: 'same-origin', body: new URLSearchParams(fields),
              headers: { 'Content-Type': 'application/x-www-form-urlencoded' }
            }).then(function (response) {
              return response.json().then(function (answer) {
                if (!response.ok) { refuse(answer.error || 'Refused.'); return; }
                show(answer.job);
                poll();
              });
            }, function () { refuse('The dashboard did not answer.'); confirmGone(1); });
          }
          function poll() {
            if (polling || stopped) return;
            polling = true;
            fetch('/_dashboard/survey/status', { credentials: 'same-origin' }).then(function (r) { return r.json(); })
              .then(function (answer) {
                polling = false;
                var job = answer.job;
                if (!job) return;
                show(job);
                if (busy(job)) setTimeout(poll, 400);
              }, function () { polling = false; confirmGone(1); });
          }
          // A failed request: asked again `tries` more times, half a second apart, before the page says the dashboard stopped.
          function confirmGone(tries) {
            if (stopped) return;
            fetch('/_dashboard/survey/status', { credentials: 'same-origin' }).then(function (r) { return r.json(); })
              .then(function (answer) { if (answer.job) { show(answer.job); if (busy(answer.job)) poll(); } },
                function () { if (tries > 0) setTimeout(function () { confirmGone(tries - 1); }, 500); else halt(false, lastJob); });
          }
          function name(job) {
            var where = job.map === wrap.dataset.map ? '' : ' on ' + job.map;
            return job.kind === 'walk' ? 'the walk ' + job.scenario + where : 'the measurement at ' + at(job.x, job.y) + where;
          }
          // The dashboard stopped: say so and what became of the job; nothing can be started any more.
          function halt(announced, job) {
            if (stopped === 'announced') return;
            stopped = announced ? 'announced' : 'unreachable';
            job = job || lastJob;
            var fate = !busy(job) ? 'no measurement was running'
              : job.state === 'storing' ? name(job) + ' being stored is finished first (its terminal says so)'
              : name(job) + ' in progress was ' + (announced ? 'discarded' : 'not stored');
            banner.textContent = (announced ? 'The dashboard stopped (Ctrl-C in its terminal, or a stop signal): '
              : 'The dashboard stopped answering (its process ended, or Ctrl-C in its terminal): ') + fate +
              '; nothing more is measured. Start fprint dashboard again and reload this page to go on.';
            banner.hidden = false;
            say('Stopped: the dashboard is not running.', true);
            status.dataset.state = 'stopped';
            progress.hidden = true;
            clear('pending');
            clear('target');
            [xInput, yInput, route].concat(buttons).forEach(function (e) { if (e) e.disabled = true; });
            wrap.className = 'stopped';
          }
          function show(job) {
            if (stopped) return;
            lastJob = job;
            var running = busy(job);
            status.dataset.state = job.state;
            status.dataset.job = job.job;
            buttons[0].disabled = running;
            if (buttons[1]) buttons[1].disabled = running || !route || route.options.length === 0;
            progress.hidden = !running;
            progress.value = job.duration_s > 0 ? Math.min(1, job.elapsed_s / job.duration_s) : 0;
            var here = job.kind === 'point' && job.map === wrap.dataset.map;
            if (running && here) marker('pending', job.x, job.y, 8); else clear('pending');
            if (running && job.target && job.map === wrap.dataset.map) marker('target', job.target.x, job.target.y, 8); else clear('target');
            if (job.state === 'running') {
              var left_s = Math.max(0, Math.ceil(job.duration_s - job.elapsed_s));
              say((job.kind === 'point' ? 'Measuring at ' + at(job.x, job.y) + ' on ' + job.map
                : 'Walking ' + job.scenario + ' on ' + job.map + ': keep up with the green marker') +
                ': ' + left_s + ' s left of ' + Math.round(job.duration_s) + ' s' + (job.guidance ? ' — ' + job.guidance : '') + '.');
            } else if (job.state === 'storing') {
              say('Storing ' + (job.kind === 'point' ? 'the measurement' : 'the walk\\'s documents') + '…');
            } else if (job.state === 'failed') {
              say('Not stored: ' + job.message, true);
            } else if (job.state === 'stored') {
              // The last job may be another map's (the job is the dashboard's, not this page's): its points are not drawn here.
              if (job.job !== lastShown) { lastShown = job.job; job.stored.forEach(function (s) { if ((s.map || job.map) === wrap.dataset.map) addPoint(s); }); }
              say(job.kind === 'point' ? 'Stored ' + job.stored[0].id + ' at ' + at(job.x, job.y) + '.'
                : 'Stored ' + job.stored.length + ' documents of walk ' + job.scenario + '.' + (job.message ? ' ' + job.message : ''));
            }
          }
          function addPoint(p) {
            var layer = svg.querySelector('g.points');
            if (layer.querySelector('circle[data-id="' + p.id + '"]')) return;
            var c = document.createElementNS(ns, 'circle'), xy = onPlan(p.x, p.y);
            c.setAttribute('class', 'point new');
            c.setAttribute('data-id', p.id);
            c.setAttribute('cx', xy[0]);
            c.setAttribute('cy', xy[1]);
            c.setAttribute('r', '4');
            c.setAttribute('fill', '#d62728');
            layer.appendChild(c);
            // Its unsurveyed cell is surveyed now, and the count above the plan says so.
            var cx = +xy[0], cy = +xy[1], cells = svg.querySelectorAll('g.unsurveyed rect');
            for (var i = 0; i < cells.length; i++) {
              var r = cells[i], x = +r.getAttribute('x'), y = +r.getAttribute('y'), w = +r.getAttribute('width');
              if (cx >= x && cx < x + w && cy >= y && cy < y + w) r.parentNode.removeChild(r);
            }
            document.getElementById('unsurveyed-count').textContent = String(svg.querySelectorAll('g.unsurveyed rect').length);
            document.getElementById('point-count').textContent = String(layer.querySelectorAll('circle.point').length);
          }
          // Points stored by others (a walk or sync in another process) appear; the stream's end at a stop says the dashboard stopped.
          if (window.EventSource) {
            source = new EventSource('/_dashboard/events?map=' + encodeURIComponent(wrap.dataset.map) +
              '&since=' + encodeURIComponent(wrap.dataset.since));
            source.addEventListener('point', function (event) { if (!stopped) addPoint(JSON.parse(event.data)); });
            source.addEventListener('stopped', function (event) { source.close(); halt(true, JSON.parse(event.data).job); });
            // An error is also the stream's routine reconnection: a poll tells the two apart.
            source.addEventListener('error', function () { if (stopped) source.close(); else confirmGone(1); });
          }
          poll();
        })();
        """
}
