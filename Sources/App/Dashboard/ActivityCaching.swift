import Foundation

/// How long the dashboard's and the team page's ops-per-day charts keep a count (per team and
/// day) before counting again: the charts show two weeks, so a minute's lag is not seen, and
/// a page view does not read two weeks of the op log each time.
enum ActivityCaching {
    static let lifetime: TimeInterval = 60
}
