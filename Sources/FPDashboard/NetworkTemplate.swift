extension Templates {
    /// The Network page: the figure and period switches are plain links (no script), and so is every bar of the chart.
    static let network = """
        <h1>Network on {{id}} <small>{{description}}</small></h1>
        <p>Network probes on this map (<code>fprint probe --every</code>, <code>measure --probe</code>, <code>walk --probe</code>):
        <span id="run-total">{{total}}</span> in all. {{zone}}. <a href="/_dashboard/maps/{{link}}">Map page</a>.</p>
        {{^hasRuns}}<p id="no-runs">No probe runs on this map yet: run <code>fprint probe --every 10m --map {{id}} --x … --y …</code>
        or <code>fprint measure --map {{id}} … --probe</code>, then sync.</p>{{/hasRuns}}
        {{#hasRuns}}<p class="switch" id="metric-switch">Figure: {{#metrics}}<a href="{{href}}"{{#on}} class="on"{{/on}}>{{name}}</a> {{/metrics}}</p>
        <p class="switch" id="period-switch">Per {{#periods}}<a href="{{href}}"{{#on}} class="on"{{/on}}>{{name}}</a> {{/periods}}
        · <span id="range">{{range}}</span>{{#allTime}} · <a href="{{allTime}}" id="all-time">all time</a>{{/allTime}}
        · <span id="in-range">{{inRange}}</span> runs</p>
        {{#noFigure}}<p id="no-figure">{{noFigure}}</p>{{/noFigure}}
        <section><h2>Over time</h2><p class="muted">Click a bar for its finer periods (a day its hours).</p>
        <div id="network-chart">{{{chart}}}</div></section>
        <section><h2>On the floor</h2><div id="network-heatmap">{{{heatmap}}}</div>{{^heatmap}}<p>No run with a place and this figure.</p>{{/heatmap}}</section>
        <h2>Runs <small id="table-note">{{tableNote}}</small></h2>
        <table id="network-runs"><thead><tr><th>Time</th><th>Link</th><th>Place</th><th>Download</th><th>Upload</th><th>RTT</th>
        <th>Loss</th><th>Jitter</th></tr></thead><tbody>
        {{#rows}}<tr><td title="{{document}}">{{time}}</td><td>{{link}}</td><td>{{place}}</td><td class="num">{{down}}</td><td class="num">{{up}}</td>
        <td class="num">{{rtt}}</td><td class="num">{{loss}}</td><td class="num">{{jitter}}</td></tr>{{/rows}}</tbody></table>{{/hasRuns}}
        """
}
