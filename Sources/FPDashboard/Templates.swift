import Mustache

/// The pages' Mustache templates, compiled into the binary (the installed
/// `fprint` is one file: no resource bundle to find at run time). `{{x}}`
/// is HTML-escaped; `{{{x}}}` only takes SVG the plots escaped themselves.
enum Templates {
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in sources {
            // The templates are constants of this file: a parse error is a bug, caught by every test.
            do { try library.register(text, named: name) } catch { preconditionFailure("template \(name): \(error)") }
        }
        return library
    }()

    static func render(_ name: String, _ context: [String: Any]) -> String {
        library.render(context, withTemplate: name) ?? ""
    }

    static let sources: [String: String] = [
        "layout": layout, "login": login, "index": index, "map": map, "activity": activity, "mine": mine,
        "admin": admin, "message": message, "errors": errors, "survey": survey, "surveyIndex": surveyIndex,
        "network": network, "pager": pager,
    ]

    static let layout = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · fprint</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/_dashboard/style.css"></head>
        <body><header><a class="brand" href="/_dashboard/">fprint</a>
        {{#user}}<nav><a href="/_dashboard/">Maps</a> {{#survey}}<a href="/_dashboard/survey">Survey</a> {{/survey}}<a href="/_dashboard/activity">Activity</a>
        {{#surveyor}}<a href="/_dashboard/mine">{{uploads}}</a>{{/surveyor}}
        {{#admin}}<a href="/_dashboard/admin">Admin</a>{{/admin}}</nav>
        <span class="who">{{name}} ({{role}}){{#canLogout}}
        <form method="post" action="/_dashboard/logout" class="inline"><button type="submit">Log out</button></form>{{/canLogout}}</span>
        {{/user}}</header>
        <main>{{{content}}}</main>{{#script}}<script src="/_dashboard/{{script}}"></script>{{/script}}</body></html>
        """

    static let login = """
        <h1>Log in</h1>
        {{#error}}<p class="error" id="login-error">{{error}}</p>{{/error}}
        <form method="post" action="/_dashboard/login" class="login"><input type="hidden" name="next" value="{{next}}">
        <label>Name <input name="name" autocomplete="username" value="{{name}}"></label>
        <label>Password, or a token with an empty name <input name="password" type="password" autocomplete="current-password"></label>
        <button type="submit">Log in</button></form>
        """

    static let index = """
        <h1>Maps</h1>
        <table id="maps"><thead><tr><th>Map</th><th>Points</th><th>Walks</th><th>Latest</th><th>Surveyors</th></tr></thead><tbody>
        {{#maps}}<tr><td><a href="/_dashboard/maps/{{link}}">{{id}}</a> {{description}}{{#probeRuns}}
        · <a class="network-link" href="/_dashboard/network/{{link}}">network ({{probeRuns}} probes)</a>{{/probeRuns}}</td><td class="num">{{points}}</td>
        <td class="num">{{walks}}</td><td>{{latest}}</td><td>{{surveyors}}</td></tr>{{/maps}}
        </tbody></table>{{^maps}}<p>No measurements yet.</p>{{/maps}}
        <h2>Beacon health</h2>
        {{#health}}<p>As <code>fprint beacons --health</code> reports it, from the latest measurements of every map.</p>
        <table id="beacon-health"><thead><tr><th>Map</th><th>Beacons</th><th>Heard</th><th>State</th></tr></thead><tbody>
        {{#maps}}<tr><td><a href="/_dashboard/maps/{{link}}">{{map}}</a></td><td class="num">{{beacons}}</td><td class="num">{{heard}}</td>
        <td>{{state}}</td></tr>{{/maps}}</tbody></table>
        {{#hasAlerts}}<ul id="alerts">{{#alerts}}<li class="alert"><a href="/_dashboard/maps/{{link}}#{{anchor}}">{{map}} {{mac}}</a>
        at {{at}}: {{text}}</li>{{/alerts}}</ul>{{/hasAlerts}}
        {{^hasAlerts}}<p id="no-alerts">No alert on a surveyed map.</p>{{/hasAlerts}}{{/health}}
        {{#healthNote}}<p id="no-alerts">{{healthNote}}</p>{{/healthNote}}
        {{#limitAlerts}}<h2>Limits and alerts</h2>
        <p>{{summary}} (<code>fprint alerts --history</code>).</p>
        {{#hasRows}}<table id="limit-alerts"><thead><tr><th>Rule</th><th>Subject</th><th>Since</th><th>Until</th><th>Worst</th><th>Limit</th></tr></thead><tbody>
        {{#rows}}<tr class="{{state}}"><td>{{rule}}</td><td>{{subject}}</td><td>{{since}}</td><td>{{until}}</td><td>{{worst}}</td><td>{{limit}}</td></tr>{{/rows}}
        </tbody></table>{{/hasRows}}{{/limitAlerts}}
        """

    static let map = """
        <h1>{{id}} <small>{{description}}</small></h1>
        <p><span id="point-count">{{points}}</span> points, walks: <span id="walk-count">{{walks}}</span>. <a href="/_dashboard/maps/{{link}}/errors">Positioning errors</a>.{{#probeRuns}}
        <a class="network-link" href="/_dashboard/network/{{link}}">Network ({{probeRuns}} probes)</a>.{{/probeRuns}} Walking now: <span id="live-count">0</span>. <span id="live" class="muted">live updates off</span></p>
        <div class="plots"><section><h2>Floor, points and walks</h2>
        <div id="floor-wrap" data-map="{{id}}" data-since="{{sequence}}">{{{floor}}}</div>
        <ul class="legend" id="walk-legend">{{#walkLegend}}<li class="walk">{{{sample}}}{{label}}</li>{{/walkLegend}}
        {{#hasBeacons}}<li><span class="swatch diamond"></span>registered beacon</li>{{/hasBeacons}}</ul></section>
        <section><h2>Heatmap</h2>
        <form method="get" id="tx-form"><label>Transmitter <select name="tx" id="tx">{{#transmitters}}
        <option value="{{id}}"{{#selected}} selected{{/selected}}>{{id}} ({{count}} points)</option>{{/transmitters}}</select></label>
        <noscript><button type="submit">Show</button></noscript></form>
        <div id="heatmap">{{{heatmap}}}</div>{{^heatmap}}<p>No transmitter heard on this map.</p>{{/heatmap}}</section>
        <section><h2>Coverage and gaps</h2><p id="coverage-note">{{coverageNote}}</p><div id="coverage">{{{coverage}}}</div></section></div>
        """

    static let errors = """
        <h1>Positioning errors on {{id}}</h1>
        <p>Leave-one-out: each measurement located from all the others (WKNN, k = 3), as <code>fprint eval</code> does.
        <a href="/_dashboard/maps/{{link}}">Back to the map</a></p>
        {{#note}}<p id="errors-note">{{note}}</p>{{/note}}
        {{#hasRows}}<table id="errors"><thead><tr><th>Radios</th><th>Located</th><th>Median m</th><th>75 % m</th><th>95 % m</th>
        <th>Not located</th></tr></thead><tbody>{{/hasRows}}
        {{#rows}}<tr><td>{{label}}</td><td class="num">{{count}}</td><td class="num">{{median}}</td><td class="num">{{p75}}</td>
        <td class="num">{{p95}}</td><td class="num">{{unlocalised}}</td></tr>{{/rows}}
        {{#hasRows}}</tbody></table>{{/hasRows}}
        <div id="errors-plot">{{{plot}}}</div>
        """

    static let activity = """
        <h1>Activity</h1>
        <p>Documents per <a href="?by=day"{{#day}} class="on"{{/day}}>day</a> ·
        <a href="?by=week"{{#week}} class="on"{{/week}}>week</a> · <a href="?by=month"{{#month}} class="on"{{/month}}>month</a></p>
        <div id="activity-chart">{{{chart}}}</div>
        <table id="activity"><thead><tr><th>{{period}}</th><th>Documents</th><th>By surveyor</th><th>By map</th></tr></thead><tbody>
        {{#rows}}<tr><td>{{label}}</td><td class="num">{{count}}</td><td>{{owners}}</td><td>{{maps}}</td></tr>{{/rows}}</tbody></table>
        """

    static let mine = """
        <h1>{{heading}}</h1><p><span id="mine-count">{{count}}</span> {{what}}, newest first.{{#range}}
        Showing <span id="mine-range">{{range}}</span>.{{/range}}</p>
        {{#pager}}{{> pager}}{{/pager}}
        <table id="mine"><thead><tr><th>Created</th><th>Map</th><th>Position</th><th>Walk</th>{{#local}}<th>Signed by</th>{{/local}}<th>Id</th></tr></thead><tbody>
        {{#rows}}<tr><td>{{created}}</td><td>{{map}}</td><td>{{x}}, {{y}}</td><td>{{session}}</td>{{#local}}<td>{{owner}}</td>{{/local}}<td><code>{{id}}</code></td></tr>{{/rows}}
        </tbody></table>{{#pager}}{{> pager}}{{/pager}}
        """

    /// Links to the newer and older pages of a long list, above and below it.
    static let pager = """
        <p class="pager">{{#previous}}<a rel="prev" href="?page={{previous}}">← newer</a>{{/previous}}
        <span>page {{page}} of {{pages}}</span>{{#next}}<a rel="next" href="?page={{next}}">older →</a>{{/next}}</p>
        """

    static let admin = """
        <h1>Admin</h1>
        <h2>Users file</h2>
        <table id="accounts"><thead><tr><th>Name</th><th>Role</th></tr></thead><tbody>
        {{#accounts}}<tr><td>{{name}}</td><td>{{role}}</td></tr>{{/accounts}}</tbody></table>
        {{^accounts}}<p>{{accountsNote}}</p>{{/accounts}}
        <h2>Tokens and sessions</h2>
        <p>Every token and login session the gateway issued that has not expired. Revoking one ends it at once, wherever it was copied.
        Each user keeps their {{sessionsPerUser}} newest login sessions: a newer login ends the oldest ("ended: newer logins").</p>
        {{#revokedID}}<p class="issued" id="revoked">Revoked.</p>{{/revokedID}}
        {{#revokeError}}<p class="error" id="revoke-error">{{revokeError}}</p>{{/revokeError}}
        <table id="credentials"><thead><tr><th>User</th><th>Role</th><th>What</th><th>Issued</th><th>Expires</th><th></th></tr></thead><tbody>
        {{#credentials}}<tr><td>{{user}}</td><td>{{role}}</td><td>{{note}}</td><td>{{issued}}</td><td>{{expires}}</td>
        <td>{{#superseded}}ended: newer logins{{/superseded}}{{#revoked}}revoked{{/revoked}}{{^revoked}}{{^superseded}}<form method="post" action="/_dashboard/admin/revoke" class="inline">
        <input type="hidden" name="id" value="{{id}}"><button type="submit">Revoke</button></form>{{/superseded}}{{/revoked}}</td></tr>{{/credentials}}
        </tbody></table>
        <h2>Signers seen in the data</h2>
        <table id="signers"><thead><tr><th>Signer</th><th>Documents</th><th>Latest</th></tr></thead><tbody>
        {{#signers}}<tr><td>{{name}}</td><td class="num">{{count}}</td><td>{{latest}}</td></tr>{{/signers}}</tbody></table>
        <h2>Issue a token</h2>
        {{#issued}}<p class="issued">A {{#tokenOnly}}token-only {{/tokenOnly}}{{role}} token for <strong>{{name}}</strong>, valid {{days}} days. Copy it now and hand it over
        privately: it is shown only this once (the gateway keeps its id and expiry, not the token).</p><pre id="issued-token">{{token}}</pre>{{/issued}}
        {{#issueError}}<p class="error" id="issue-error">{{issueError}}</p>{{/issueError}}
        <form method="post" action="/_dashboard/admin/tokens" class="login" autocomplete="off">
        <label>User <input name="name" required maxlength="128"></label>
        <label>Role <select name="role"><option>viewer</option><option selected>user</option><option>admin</option></select></label>
        <label>Days valid <input name="days" type="number" min="1" max="{{maxDays}}" value="30"></label>
        <label><input name="tokenOnly" type="checkbox"> Token-only: for a user without a users-file line (it lives until it
        expires or is revoked; any other token ends when its user's line is removed)</label>
        <button type="submit">Issue</button></form>
        """

    static let surveyIndex = """
        <h1>Survey</h1><p>Choose the floor to measure on. Measurements: {{settings}}.</p>
        <table id="survey-maps"><thead><tr><th>Map</th><th>Routes</th></tr></thead><tbody>
        {{#maps}}<tr><td><a href="/_dashboard/survey/maps/{{link}}">{{id}}</a> {{description}}</td><td class="num">{{routes}}</td></tr>{{/maps}}
        </tbody></table>{{^maps}}<p>The app config has no map: add one with <code>fprint map add</code>.</p>{{/maps}}
        """

    static let survey = """
        <h1>Survey {{id}} <small>{{description}}</small></h1>
        <p>Click the plan where you stand, or type the position, to measure there ({{settings}}). <span id="point-count">{{points}}</span>
        points so far; <span class="key unsurveyed-key"></span> <span id="unsurveyed-count">{{unsurveyed}}</span> cells of 3 m without a point,
        <span class="key weak-key"></span> {{weak}} measured cells with fewer than {{needed}} beacons. <a href="/_dashboard/maps/{{link}}">Map page</a>.</p>
        <noscript><p class="error">Measuring from this page needs JavaScript.</p></noscript>
        <p id="survey-stopped" class="stopped-banner" role="alert" hidden></p>
        <div class="survey"><div id="survey-wrap" data-map="{{id}}" data-token="{{token}}" data-since="{{since}}"
        data-meters-per-unit="{{metersPerUnit}}">{{{floor}}}</div>
        <aside><form id="point-form" class="survey-form"><h2>Measure at a point</h2>
        <p class="muted">In metres from the plan's top left corner, as on its axes.</p>
        <label>x <input id="x" name="x" type="number" step="any" min="0" max="{{width}}" required> m</label>
        <label>y <input id="y" name="y" type="number" step="any" min="0" max="{{height}}" required> m</label>
        <button type="submit" id="measure">Measure here</button></form>
        <form id="walk-form" class="survey-form"><h2>Walk a route</h2>
        <label>Route <select id="route" name="scenario">{{#routes}}
        <option value="{{id}}" data-points="{{points}}">{{name}}{{floors}}</option>{{/routes}}</select></label>
        <button type="submit" id="walk"{{^routes}} disabled{{/routes}}>Walk</button>
        {{^routes}}<p class="muted">No route on this map: add one with <code>fprint scenario add</code>.</p>{{/routes}}</form>
        <p id="survey-refusal" class="error" role="alert" hidden></p>
        <div id="survey-status" role="status" aria-live="polite"><p class="muted">Ready.</p></div>
        <progress id="survey-progress" max="1" value="0" hidden></progress>
        </aside></div>
        """

    static let message = """
        <h1>{{heading}}</h1><p id="message">{{text}}</p><p><a href="/_dashboard/">Back to the maps</a></p>
        """
}
