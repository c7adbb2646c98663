import CPathwatchProbe
import Glibc
import PathwatchProbeKit
import Testing

/// The Swift SDK through the C boundary, as the host calls it.
@Suite struct ProbeKitTests {
    final class Alpha: Probe {
        struct Config: Decodable {
            var limit: Int
        }
        static let name = "alpha", version = "1.0.0", summary = "Test probe alpha."
        let limit: Int
        init(config: Config) throws {
            guard config.limit > 0 else {
                throw ProbeConfigError("limit", "expected a positive limit, found \(config.limit)")
            }
            limit = config.limit
        }
        func sample(into emitter: Emitter) throws {
            emitter.emit(
                Observation(key: "a", state: .warning, message: "limit \(limit)", metrics: [("limit", Double(limit))]))
        }
    }

    final class Beta: Probe {
        struct Config: Decodable {}
        static let name = "beta", version = "2.0.0", summary = "Test probe beta."
        static var flags: ProbeFlags { [.needsNetwork] }
        init(config: Config) throws {}
        func sample(into emitter: Emitter) throws { throw ProbeSampleError("nothing to see") }
    }

    func descriptor(_ raw: UnsafeRawPointer) -> pw_probe_descriptor {
        raw.assumingMemoryBound(to: pw_probe_descriptor.self).pointee
    }

    func create(_ d: pw_probe_descriptor, _ json: String) -> (UnsafeMutableRawPointer?, pw_error) {
        var error = pw_error()
        error.struct_size = MemoryLayout<pw_error>.size
        var instance: UnsafeMutableRawPointer? = nil
        let status = json.withCString { d.create($0, json.utf8.count, &instance, &error) }
        return (status == PW_OK ? instance : nil, error)
    }

    func text<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }

    @Test func twoProbeTypesInOneImageGetTheirOwnDescriptors() throws {
        let a = descriptor(ProbeExport.descriptor(for: Alpha.self))
        let b = descriptor(ProbeExport.descriptor(for: Beta.self))
        #expect(ProbeExport.descriptor(for: Alpha.self) == ProbeExport.descriptor(for: Alpha.self))
        #expect(String(cString: a.name) == "alpha" && String(cString: b.name) == "beta")
        #expect(
            a.abi_version == PW_PROBE_ABI_VERSION && a.struct_size == UInt32(MemoryLayout<pw_probe_descriptor>.size))
        #expect(b.flags == UInt64(PW_PROBE_FLAG_NEEDS_NETWORK) && a.flags == 0)
        #expect(a.event_fd == nil && a.handle_event == nil)

        // Each descriptor's create makes its own type.
        let (alpha, _) = create(a, #"{"limit": 3}"#)
        let instance = try #require(alpha)
        defer { a.destroy(instance) }
        final class Sink {
            var keys: [String] = []
            var states: [Int32] = []
        }
        let sink = Sink()
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        var emitter = pw_emitter(struct_size: MemoryLayout<pw_emitter>.size, context: context.toOpaque()) { ctx, obs in
            let s = Unmanaged<Sink>.fromOpaque(ctx!).takeUnretainedValue()
            s.keys.append(String(cString: obs!.pointee.key))
            s.states.append(obs!.pointee.state)
            return PW_OK
        }
        var error = pw_error()
        #expect(a.sample(instance, &emitter, &error) == PW_OK)
        #expect(sink.keys == ["a"] && sink.states == [Int32(PW_STATE_WARNING.rawValue)])

        let (beta, _) = create(b, "{}")
        let betaInstance = try #require(beta)
        defer { b.destroy(betaInstance) }
        #expect(b.sample(betaInstance, &emitter, &error) == PW_ERR)
        #expect(text(error.message) == "nothing to see")
    }

    @Test(arguments: [
        (#"{"limit": 0}"#, "limit", "expected a positive limit, found 0"),
        (#"{"limit": 1, "limt": 2}"#, "limt", "unknown key \"limt\" (known keys here: limit)"),
        (#"{}"#, "limit", "required key \"limit\" is missing"),
        (#"{"limit": "#, "", "config is not valid JSON: line 1, column 11: unexpected end of input, expected a value"),
    ])
    func configErrorsCrossTheBoundaryWithTheirPath(json: String, path: String, message: String) {
        let a = descriptor(ProbeExport.descriptor(for: Alpha.self))
        let (instance, error) = create(a, json)
        #expect(instance == nil)
        #expect(text(error.path) == path)
        #expect(text(error.message) == message)
    }

    /// Plain names are compared as bytes rather than through fnmatch: every pattern, plain or
    /// not, must still match exactly what fnmatch(3) matches.
    @Test func globsMatchWhatFnmatchMatches() {
        let patterns = ["lo", "eth0", "eth*", "wlan?", "veth[0-9]", "a\\b", "", "é", "lo ", "]x", "docker0"]
        let names = [
            "lo", "lo0", "eth0", "eth", "wlan1", "veth3", "vethx", "ab", "a\\b", "", "é", "e\u{301}", "lo ", "]x",
            "docker0", "Docker0",
        ]
        for pattern in patterns {
            for name in names {
                #expect(
                    Glob(pattern).matches(name) == (fnmatch(pattern, name, 0) == 0),
                    "pattern \(pattern) against \(name)")
            }
        }
        #expect(Glob("lo") == Glob("lo") && Set([Glob("lo"), Glob("lo")]).count == 1)
    }
}
