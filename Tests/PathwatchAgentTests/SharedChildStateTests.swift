import Testing

@testable import PathwatchPluginHost

/// A shared child counts its samples in flight, so that a tick's calls that find each other in
/// flight are held a moment and cross together: the count follows every way a call ends or is
/// replaced, or calls would be held when none is in flight, or never.
@Suite struct SharedChildStateTests {
    static func state(members: Int) -> SharedChildState {
        var state = SharedChildState()
        let limits = ProcessProbeHost.ChildLimits(
            maxMemoryBytes: 64 << 20, maxObservations: 10, probeTimeout: .seconds(5))
        for n in 1...members {
            _ = state.reserve(.init(probeID: "p\(n)", configJSON: "{}", limits: limits))
        }
        return state
    }

    @Test func samplesInFlightFollowEachCallsBeginningAndEnd() {
        var state = Self.state(members: 3)
        state.setCall("sample", of: 1)
        state.setCall("sample", of: 2)
        #expect(state.samplesInFlight == 2)
        // Sampled again before its end was taken: one call, counted once.
        state.setCall("sample", of: 2)
        #expect(state.samplesInFlight == 2)
        // Replaced by another call (a destroy after a stop let the sample go).
        state.setCall("destroy", of: 1)
        #expect(state.samplesInFlight == 1)
        state.setCall(nil, of: 1)
        #expect(state.samplesInFlight == 1)
        // Removed with its sample in flight.
        let wasLast = state.remove(2)
        #expect(!wasLast)
        #expect(state.samplesInFlight == 0)
        // Not a member: nothing to count.
        state.setCall("sample", of: 99)
        #expect(state.samplesInFlight == 0)
        state.setCall("create", of: 3)
        #expect(state.samplesInFlight == 0)
    }

    @Test func aSampleThatCannotGoIsNotCounted() {
        var state = Self.state(members: 2)
        // No child runs: the sample is refused with the reason, and nothing is in flight.
        guard case .failure(let refusal) = state.beginSample(1) else {
            Issue.record("a sample was sent with no child")
            return
        }
        #expect(refusal.cause == "plug-in restarting")
        #expect(state.samplesInFlight == 0)
    }
}
