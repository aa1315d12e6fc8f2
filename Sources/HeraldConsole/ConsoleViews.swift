/// What a signed-in console page is rendered from (`top.mustache` and the page's template): typed, so a template
/// and the server cannot disagree on a name without the compiler or a test seeing it.
struct PageView: Sendable {
    /// The page's title, also its link's text.
    let title: String
    /// The page's name: its template and its script (`/console/assets/<page>.js`).
    let page: String
    /// The session's CSRF token, for the page's forms and requests.
    let csrf: String
    /// Who the session signed in as.
    let signedInAs: String
    /// The navigation, in its order.
    let nav: [NavigationLink]
    /// History's first page, rendered on History.
    var history: HistoryView?
    /// The last hour's charts, rendered on Metrics.
    var metrics: MetricsView?
}

/// One link of the navigation.
struct NavigationLink: Sendable {
    let title: String
    let href: String
    /// Whether it is the page shown.
    let current: Bool
}

/// History's first page: the apps to choose from and the chosen app's latest notifications.
struct HistoryView: Sendable {
    let apps: [AppChoice]
    let rows: [HistoryRow]
    /// There is no app yet to show.
    let noApp: Bool
}

/// An app in History's chooser.
struct AppChoice: Sendable {
    let id: String
    /// Its name and bundle ID.
    let label: String
    let selected: Bool
}

/// One step of a notification's funnel: how many devices got that far, as a share of those targeted.
struct FunnelStep: Sendable {
    let name: String
    let count: Int
    let percent: Int
    /// Its bar's place in the funnel's drawing (100 wide, a bar of 5 every 6).
    let y: Int
}

/// One notification as History's row shows it.
struct HistoryRow: Sendable {
    let id: String
    let created: String
    let target: String
    let pushType: String
    let state: String
    let targeted: Int
    let queued: Int
    let inFlight: Int
    let accepted: Int
    /// The rejections by reason, `0` for none.
    let rejected: String
    let delivered: Int
    let displayed: Int
    let opened: Int
    /// The actions chosen by identifier (`open` for the default action), `0` for none.
    let actions: String
    let replies: Int
    /// The funnel's bars, and what a screen reader says of them.
    let funnel: [FunnelStep]
    let funnelLabel: String
}

/// The Metrics page's last hour, drawn on the server.
struct MetricsView: Sendable {
    let charts: [MetricsChart]
    let rejections: [RejectionCount]
    /// Whether an app could not reach APNs during the hour (the legend is shown).
    let unreachable: Bool
}

/// One line chart.
struct MetricsChart: Sendable {
    let title: String
    /// What a screen reader says of it: the title and the latest value.
    let label: String
    /// What the value axis counts (`per second`, `deliveries`, `ms`), written above it.
    let unit: String
    /// The SVG polyline's points; `nil` when there are fewer than two samples.
    let points: String?
    /// The value axis' labels (0, half, the highest, with the unit) and the time axis' (UTC), at their positions.
    let values: [AxisLabel]
    let times: [AxisLabel]
    /// The spans when APNs was unreachable, shaded.
    let outages: [OutageSpan]
    /// Said instead of a blank box when there is nothing to draw yet.
    let empty: String?
    /// The chart's size and margins, for the template.
    let width = Int(MetricsCharts.width), height = Int(MetricsCharts.height)
    let plotLeft = Int(MetricsCharts.left), plotRight = Int(MetricsCharts.width - MetricsCharts.right)
    let plotTop = Int(MetricsCharts.top), plotBottom = Int(MetricsCharts.height - MetricsCharts.bottom)
    let timeBaseline = Int(MetricsCharts.height - MetricsCharts.bottom + 20)
    let plotHeight = Int(MetricsCharts.height - MetricsCharts.top - MetricsCharts.bottom)
    let labelX = Int(MetricsCharts.left - 6)
    let plotWidth = Int(MetricsCharts.width - MetricsCharts.left - MetricsCharts.right)
    let middleX = Int(MetricsCharts.left + (MetricsCharts.width - MetricsCharts.left - MetricsCharts.right) / 2)
    let middleY = Int(MetricsCharts.top + (MetricsCharts.height - MetricsCharts.top - MetricsCharts.bottom) / 2)
}

/// A label on a chart's axis, at its position along the axis (SVG units), and which of its ends is there (SVG's
/// `text-anchor`).
struct AxisLabel: Sendable {
    let position: String
    let text: String
    let anchor: String
}

/// A span of a chart when APNs was unreachable.
struct OutageSpan: Sendable {
    let x: String
    let width: String
}

/// The rejected sends of one reason.
struct RejectionCount: Sendable, Equatable {
    let reason: String
    let count: String
}

/// The sign-in page.
struct LoginView: Sendable {
    let title = "Sign in"
    /// Why the last try failed.
    let message: String?
    /// The console page to go back to after signing in.
    let back: String?
    /// A one-time sign-in code to confirm with a button (a link not opened directly).
    let code: String?
}
