import PathwatchNetlink

/// Link speeds read from sysfs, per interface index, and the links whose speed is due to be
/// read again.
///
/// Reading `class/net/IF/speed` takes the kernel's RTNL lock, which the command that changed a
/// link still holds when the kernel announces the change: read at once, the read waited for
/// that command to finish, and the change's report waited with it. So an event reports a link
/// with the speed last read for it (none for a link that has just come up) and marks it due;
/// the probe reads the speeds due a little later, on a timer, and reports what they changed.
/// A sample reads every speed at once.
struct LinkSpeeds {
    /// Positive speeds in Mb/s; a link whose speed the kernel does not know has none.
    private var known: [Int32: Int] = [:]
    /// Links to read again, by index.
    private(set) var due: Set<Int32> = []

    /// The speed to report for `link`: only an administratively up link has one.
    func speed(of link: Link) -> Int? { link.isUp ? known[link.index] : nil }

    /// `link` changed. One that is down, or not reported, has no speed; one that is up keeps the
    /// speed last read until it is read again.
    mutating func linkChanged(_ link: Link, reported: Bool) {
        if link.isUp && reported {
            due.insert(link.index)
        } else {
            forget(link.index)
        }
    }

    mutating func linkRemoved(_ index: Int32) { forget(index) }

    /// After a resynchronization: every link in `links` that is up is due; speeds of links no
    /// longer there are forgotten.
    mutating func markDue(_ links: [Link]) {
        let up = Set(links.filter(\.isUp).map(\.index))
        known = known.filter { up.contains($0.key) }
        due = up
    }

    /// Reads the speed of each link due that is still in `links` and up; nothing is due afterwards.
    mutating func readDue(of links: [Int32: Link], sysfs: Sysfs) {
        for index in due {
            guard let link = links[index], link.isUp else { continue }
            known[index] = sysfs.speedMbps(link.name)
        }
        due = []
    }

    /// Reads the speed of every link in `links` that is up (a sample); nothing is due afterwards.
    mutating func readAll(_ links: [Link], sysfs: Sysfs) {
        known = [:]
        for link in links where link.isUp { known[link.index] = sysfs.speedMbps(link.name) }
        due = []
    }

    private mutating func forget(_ index: Int32) {
        known[index] = nil
        due.remove(index)
    }
}
