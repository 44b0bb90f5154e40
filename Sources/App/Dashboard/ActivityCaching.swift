import Foundation

/// How long the ops-per-day charts of the dashboard and the team page (one cache for both,
/// made with the features) keep a count (per team and
/// day) before counting again: the charts show two weeks, so a minute's lag is not seen, and
/// a page view does not read two weeks of the op log each time.
enum ActivityCaching {
    static let lifetime: TimeInterval = 60
}
