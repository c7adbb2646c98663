import Testing

@testable import PathwatchHTTPOut

/// When deliveries wait for the path: only while it is unsatisfied, never to loopback, and
/// the moments holding starts and ends are told apart (each is logged once).
@Suite struct OfflineHoldTests {
    @Test func aRemoteDestinationIsHeldWhileThePathIsUnsatisfied() {
        // 192.0.2.1 (TEST-NET-1): a literal, so no lookup is made.
        var hold = OfflineHold(host: "192.0.2.1")
        #expect(hold.check(pathUnsatisfied: false, now: 1) == .deliver)
        #expect(hold.check(pathUnsatisfied: true, now: 2) == .hold(started: true))
        #expect(hold.check(pathUnsatisfied: true, now: 3) == .hold(started: false))
        #expect(hold.check(pathUnsatisfied: false, now: 4) == .resume)
        #expect(hold.check(pathUnsatisfied: false, now: 5) == .deliver)
        #expect(!hold.awaitsLookup)
    }

    @Test func loopbackIsNeverHeld() {
        for host in ["127.0.0.1", "::1", "localhost", "hooks.localhost"] {
            var hold = OfflineHold(host: host)
            #expect(hold.check(pathUnsatisfied: true, now: 1) == .deliver, "\(host)")
        }
    }
}
