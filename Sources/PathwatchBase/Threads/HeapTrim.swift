import CMalloc
import Synchronization

/// Hands back to the kernel the heap that large reports leave free once they are consumed.
///
/// Why: a report of a thousand checks passes through megabytes that live for a moment (the
/// plug-in's results, the record on the wire, the decoded observations, the documents the sinks
/// render), each on the thread that makes it and so in that thread's malloc arena. glibc keeps
/// what is freed in the middle of an arena: at 10,000 endpoints every 60 s, about 24 MiB of the
/// agent's RSS and 5 MiB of its plug-in child's were freed memory glibc held (measured by calling
/// `malloc_trim(0)` in each between rounds). A trim, once the reports of a round have been
/// consumed, gives whole free pages back. Buffers too large to share an arena's pages are mapped
/// on their own and unmapped when freed (HeapSettings), so they leave no such gaps.
///
/// Connections of the http sink count too (`connectionClosed`): a TLS handshake passes through
/// some hundred kilobytes of BoringSSL's and swift-nio-ssl's buffers on an event loop's thread,
/// and a flood of them left the agent's RSS at 41.8 MiB from 19.5 MiB, nearly all of it freed
/// memory glibc kept (its heap in use grew by 0.14 MB).
///
/// A document that no report brought (a paced batch: at 10,000 checks every report is unchanged,
/// so every document is one) counts as its checks, since it is rendered and freed after the last
/// report of its round was counted.
///
/// Only after reports carrying `threshold` observations or more in all: a probe of a few checks
/// frees little, and a trim walks every arena. Coalesced: one trim `delay` after the first such
/// report, however many follow, run on a worker thread (a trim holds each arena's lock while it
/// walks it: never on the timer thread, which fires every deadline).
package enum HeapTrim {
    static let threshold = 1_000
    static let delayNanoseconds: UInt64 = 1_000_000_000

    /// Trims done so far (tests wait for one).
    package static let trims = Atomic<Int>(0)
    /// Observations counted toward trims so far (tests read what a piece of work counted).
    package static let counted = Atomic<Int>(0)
    /// Observations since the last trim, and whether one is due.
    private static let pending = Mutex<(observations: Int, scheduled: Bool)>((0, false))
    private static let lane = WorkerPool.shared.lane()

    /// Whether the C library has `malloc_trim` (glibc; musl has none).
    private static let canTrim = pw_malloc_is_glibc() == 1

    /// Counts the observations of a report just consumed; schedules a trim once they reach
    /// `threshold` since the last one.
    package static func consumed(observations: Int) {
        guard observations > 0, canTrim else { return }
        counted.add(observations, ordering: .relaxed)
        let schedule = pending.withLock { p -> Bool in
            p.observations += observations
            guard p.observations >= threshold, !p.scheduled else { return false }
            p.scheduled = true
            return true
        }
        guard schedule else { return }
        _ = TimerThread.shared.schedule(afterNanoseconds: delayNanoseconds) { lane.async { trim() } }
    }

    /// What one closed connection of the http sink counts for: a trim once ten have closed (one
    /// a second at most in a flood; a scraper that does not keep its connection alive, one every
    /// tenth scrape).
    static let connectionWeight = threshold / 10

    /// Counts a connection of the http sink that just closed.
    package static func connectionClosed() { consumed(observations: connectionWeight) }

    /// Trims now; reports consumed from here on count toward the next trim.
    static func trim() {
        pending.withLock { $0 = (0, false) }
        _ = pw_malloc_trim()
        trims.add(1, ordering: .relaxed)
    }
}
