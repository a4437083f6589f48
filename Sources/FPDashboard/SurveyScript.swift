/// The Survey page's script (a file of its own, as `app.js`, so the
/// Content-Security-Policy forbids inline scripts). A click on the plan is
/// turned into map units with the SVG's own transform, so the point is the
/// same whatever size the browser draws the plan at.
enum SurveyScript {
    static let js = """
        (function () {
          'use strict';
          var wrap = document.getElementById('survey-wrap');
          if (!wrap) return;
          var svg = wrap.querySelector('svg'), ns = 'http://www.w3.org/2000/svg';
          var left = +svg.dataset.left, top = +svg.dataset.top, scale = +svg.dataset.scale;
          var status = document.getElementById('survey-status'), progress = document.getElementById('survey-progress');
          // A refusal stays until the next action: the running job's updates go to the status box.
          var refusal = document.getElementById('survey-refusal');
          var xInput = document.getElementById('x'), yInput = document.getElementById('y');
          var buttons = [document.getElementById('measure'), document.getElementById('walk')];
          var route = document.getElementById('route'), polling = false, lastShown = 0;

          function onPlan(x, y) { return [(left + x * scale).toFixed(1), (top + y * scale).toFixed(1)]; }
          function round(v) { return Math.round(v * 10) / 10; }
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
            var pt = svg.createSVGPoint();
            pt.x = event.clientX;
            pt.y = event.clientY;
            var p = pt.matrixTransform(svg.getScreenCTM().inverse());
            xInput.value = round((p.x - left) / scale);
            yInput.value = round((p.y - top) / scale);
            measure();
          });
          document.getElementById('point-form').addEventListener('submit', function (event) { event.preventDefault(); measure(); });
          document.getElementById('walk-form').addEventListener('submit', function (event) {
            event.preventDefault();
            if (route && route.value) post('walk', { scenario: route.value });
          });
          if (route) { route.addEventListener('change', drawRoute); drawRoute(); }

          function measure() {
            if (xInput.value === '' || yInput.value === '') { refuse('Type x and y (map units), or click the plan.'); return; }
            post('measure', { map: wrap.dataset.map, x: xInput.value, y: yInput.value });
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
            }, function () { refuse('The dashboard did not answer: is fprint dashboard still running?'); });
          }
          function poll() {
            if (polling) return;
            polling = true;
            fetch('/_dashboard/survey/status', { credentials: 'same-origin' }).then(function (r) { return r.json(); })
              .then(function (answer) {
                polling = false;
                var job = answer.job;
                if (!job) return;
                show(job);
                if (job.state === 'running' || job.state === 'storing') setTimeout(poll, 400);
              }, function () { polling = false; setTimeout(poll, 2000); });
          }
          function show(job) {
            var busy = job.state === 'running' || job.state === 'storing';
            status.dataset.state = job.state;
            status.dataset.job = job.job;
            buttons[0].disabled = busy;
            if (buttons[1]) buttons[1].disabled = busy || !route || route.options.length === 0;
            progress.hidden = !busy;
            progress.value = job.duration_s > 0 ? Math.min(1, job.elapsed_s / job.duration_s) : 0;
            var here = job.kind === 'point' && job.map === wrap.dataset.map;
            if (busy && here) marker('pending', job.x, job.y, 8); else clear('pending');
            if (busy && job.target && job.map === wrap.dataset.map) marker('target', job.target.x, job.target.y, 8); else clear('target');
            if (job.state === 'running') {
              var left_s = Math.max(0, Math.ceil(job.duration_s - job.elapsed_s));
              say((job.kind === 'point' ? 'Measuring at (' + job.x + ', ' + job.y + ') on ' + job.map
                : 'Walking ' + job.scenario + ' on ' + job.map + ': keep up with the green marker') +
                ': ' + left_s + ' s left of ' + Math.round(job.duration_s) + ' s' + (job.guidance ? ' — ' + job.guidance : '') + '.');
            } else if (job.state === 'storing') {
              say('Storing ' + (job.kind === 'point' ? 'the measurement' : 'the walk\\'s documents') + '…');
            } else if (job.state === 'failed') {
              say('Not stored: ' + job.message, true);
            } else if (job.state === 'stored') {
              // The last job may be another map's (the job is the dashboard's, not this page's): its points are not drawn here.
              if (job.job !== lastShown) { lastShown = job.job; job.stored.forEach(function (s) { if ((s.map || job.map) === wrap.dataset.map) addPoint(s); }); }
              say(job.kind === 'point' ? 'Stored ' + job.stored[0].id + ' at (' + job.x + ', ' + job.y + ').'
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
            // Its unsurveyed cell is surveyed now.
            var cx = +xy[0], cy = +xy[1], cells = svg.querySelectorAll('g.unsurveyed rect');
            for (var i = 0; i < cells.length; i++) {
              var r = cells[i], x = +r.getAttribute('x'), y = +r.getAttribute('y'), w = +r.getAttribute('width');
              if (cx >= x && cx < x + w && cy >= y && cy < y + w) r.parentNode.removeChild(r);
            }
            document.getElementById('point-count').textContent = String(layer.querySelectorAll('circle.point').length);
          }
          poll();
        })();
        """
}
