import CPathwatchProbe
import Glibc
import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchProbeTesting
import Testing

@testable import PathwatchAgent
@testable import PathwatchPluginHost

/// The call's deadline through the C boundary: pw_error.deadline_ns, read with
/// pw_call_deadline_ns, seen by a Swift probe as `Deadline.current` in every call.
@Suite struct ProbeKitDeadlineTests {
    /// Says the deadline each call saw: "none" or its nanoseconds.
    final class DeadlineEcho: Probe {
        struct Config: Decodable {}
        static let name = "deadline-echo", version = "1.0.0", summary = "Says the deadline of each call."
        static var flags: ProbeFlags { [.eventDriven] }
        let created: Deadline?
        /// A descriptor of its own (never readable here): the host refuses an event-driven
        /// instance without one.
        let wakeup = open("/dev/null", O_WRONLY | O_CLOEXEC)
        init(config: Config) throws { created = Deadline.current }
        deinit { close(wakeup) }
        var eventFileDescriptor: Int32? { wakeup }

        static func text(_ deadline: Deadline?) -> String { deadline.map { String($0.monotonicNanoseconds) } ?? "none" }

        func sample(into emitter: Emitter) throws {
            emitter.emit(Observation(key: "create", state: .ok, message: Self.text(created)))
            emitter.emit(Observation(key: "sample", state: .ok, message: Self.text(Deadline.current)))
        }

        func handleEvent(into emitter: Emitter) throws {
            emitter.emit(Observation(key: "event", state: .ok, message: Self.text(Deadline.current)))
        }
    }

    func messages(_ emitted: [Emitted]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: emitted.map { ($0.key, $0.message) })
    }

    @Test func aSwiftProbeSeesEachCallsDeadlineThroughTheABI() throws {
        let create = Deadline.after(.seconds(5))
        let sample = Deadline.after(.milliseconds(1500))
        let event = Deadline.after(.seconds(2))
        let probe = try ProbeTester(DeadlineEcho.self, deadline: create)
        #expect(
            messages(try probe.sample(by: sample)) == [
                "create": "\(create.monotonicNanoseconds)", "sample": "\(sample.monotonicNanoseconds)",
            ])
        #expect(messages(try probe.handleEvent(by: event)) == ["event": "\(event.monotonicNanoseconds)"])
        // Outside a call there is none, and a call without one sees none.
        #expect(Deadline.current == nil)
        #expect(messages(try probe.sample())["sample"] == "none")
    }

    /// A host built before the field hands a pw_error that ends before it: the helper reads 0
    /// whatever lies beyond, and a Swift probe sees no deadline.
    @Test func anOlderHostsShorterErrorMeansNoDeadline() throws {
        var error = pw_error()
        error.deadline_ns = 123_456_789
        error.struct_size = MemoryLayout<pw_error>.size
        #expect(pw_call_deadline_ns(&error) == 123_456_789)
        error.struct_size = MemoryLayout<pw_error>.offset(of: \pw_error.deadline_ns)!
        #expect(error.struct_size == 8 + 256 + 768)
        #expect(pw_call_deadline_ns(&error) == 0)
        #expect(pw_call_deadline_ns(nil) == 0)

        let descriptor = ProbeExport.descriptor(for: DeadlineEcho.self).assumingMemoryBound(
            to: pw_probe_descriptor.self)
        var instance: UnsafeMutableRawPointer?
        #expect("{}".withCString { descriptor.pointee.create($0, 2, &instance, &error) } == PW_OK)
        defer { descriptor.pointee.destroy(instance) }
        final class Seen { var messages: [String: String] = [:] }
        let seen = Seen()
        let context = Unmanaged.passRetained(seen)
        defer { context.release() }
        var emitter = pw_emitter(struct_size: MemoryLayout<pw_emitter>.size, context: context.toOpaque()) {
            context, observation in
            let seen = Unmanaged<Seen>.fromOpaque(context!).takeUnretainedValue()
            seen.messages[String(cString: observation!.pointee.key)] = String(cString: observation!.pointee.message)
            return PW_OK
        }
        #expect(descriptor.pointee.sample(instance, &emitter, &error) == PW_OK)
        #expect(seen.messages == ["create": "none", "sample": "none"])
    }

    /// Inline, the host's own call hands the plug-in the deadline it was given, create's too.
    @Test func theInlineHostHandsItsDeadlineToTheProbe() throws {
        let descriptor = ProbeExport.descriptor(for: DeadlineEcho.self).assumingMemoryBound(
            to: pw_probe_descriptor.self)
        let plugin = LoadedPlugin(
            path: "deadline-echo", descriptor: descriptor, described: try DescriptorCheck.check(descriptor).get())
        let create = Deadline.after(.seconds(5))
        let sample = Deadline.after(.seconds(1))
        let instance = try ProbeInstance.create(plugin: plugin, configJSON: "{}", deadline: create).get()
        defer { instance.destroy() }
        let result = instance.sample(by: sample)
        #expect(result.error == nil)
        #expect(
            Dictionary(uniqueKeysWithValues: result.observations.map { ($0.key, $0.message) })
                == ["create": "\(create.monotonicNanoseconds)", "sample": "\(sample.monotonicNanoseconds)"])
    }

    @Test func allowingKeepsAMarginToReportIn() {
        let soon = Deadline.after(.seconds(1))
        let allowed = soon.allowing(.seconds(5))
        // The time left less a tenth of it (at most 100 ms): at most 900 ms.
        #expect(allowed <= .milliseconds(900) && allowed > .milliseconds(500), "\(allowed)")
        #expect(soon.allowing(.milliseconds(200)) == .milliseconds(200))
        #expect(Deadline.after(.seconds(60)).allowing(.seconds(90)) <= .milliseconds(59_900))
        let past = Deadline(monotonicNanoseconds: MonotonicClock.nowNanoseconds() - 1_000_000)
        #expect(
            past.hasPassed && past.remaining == .init(nanoseconds: 0)
                && past.allowing(.seconds(1)) == .init(nanoseconds: 0))
    }
}
