import CPathwatchProbe
import PathwatchJSON
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns a Swift `Probe` type into the C descriptor the host loads.
///
/// C function pointers cannot capture a generic type, so each registered probe type gets a slot,
/// and the descriptor's `create` is that slot's trampoline. A plug-in library registers one type;
/// a test binary that links several probes registers each in its own slot. Instances carry their
/// own type from then on.
public enum ProbeExport {
    private struct Registration {
        var type: any ProbeFactory.Type
        var identity: ObjectIdentifier
        var descriptor: UnsafeMutablePointer<pw_probe_descriptor>
    }

    private static let registrations = Mutex<[Registration]>([])

    /// The descriptor for `P`, built once. Call it from the plug-in's exported entry point.
    public static func descriptor<P: Probe>(for type: P.Type) -> UnsafeRawPointer {
        registrations.withLock { list in
            if let existing = list.first(where: { $0.identity == ObjectIdentifier(P.self) }) {
                return UnsafeRawPointer(existing.descriptor)
            }
            precondition(
                list.count < createTrampolines.count, "more than \(createTrampolines.count) probe types in one image")
            let d = UnsafeMutablePointer<pw_probe_descriptor>.allocate(capacity: 1)
            // The strings and the descriptor live as long as the library: never freed.
            d.initialize(
                to: pw_probe_descriptor(
                    abi_version: PW_PROBE_ABI_VERSION,
                    struct_size: UInt32(MemoryLayout<pw_probe_descriptor>.size),
                    name: UnsafePointer(strdup(P.name)),
                    version: UnsafePointer(strdup(P.version)),
                    description: UnsafePointer(strdup(P.summary)),
                    flags: P.flags.rawValue,
                    create: createTrampolines[list.count],
                    sample: cSample,
                    event_fd: P.flags.contains(.eventDriven) ? cEventFD : nil,
                    handle_event: P.flags.contains(.eventDriven) ? cHandleEvent : nil,
                    destroy: cDestroy,
                    metrics: metricTable(P.metrics),
                    metric_count: P.metrics.count))
            list.append(Registration(type: ProbeFactoryFor<P>.self, identity: ObjectIdentifier(P.self), descriptor: d))
            return UnsafeRawPointer(d)
        }
    }

    /// The C table of `declarations`, living as long as the library: never freed.
    private static func metricTable(_ declarations: [MetricDeclaration]) -> UnsafePointer<pw_metric_info>? {
        guard !declarations.isEmpty else { return nil }
        let table = UnsafeMutablePointer<pw_metric_info>.allocate(capacity: declarations.count)
        for (i, d) in declarations.enumerated() {
            (table + i).initialize(
                to: pw_metric_info(
                    struct_size: MemoryLayout<pw_metric_info>.size, name: UnsafePointer(strdup(d.name)),
                    kind: d.kind.rawValue,
                    plot: d.plot.rawValue, unit: d.unit.map { UnsafePointer(strdup($0)) },
                    help: UnsafePointer(strdup(d.help))))
        }
        return UnsafePointer(table)
    }

    static func registeredType(slot: Int) -> (any ProbeFactory.Type)? {
        registrations.withLock { slot < $0.count ? $0[slot].type : nil }
    }

    /// Decodes a probe's config from JSON text, as the host hands it over.
    public static func decodeConfig<C: Decodable>(_ type: C.Type, from json: String) throws(ProbeConfigError) -> C {
        let value: JSONValue
        do {
            value = try JSONParser.parse(json.isEmpty ? "{}" : json)
        } catch {
            throw ProbeConfigError(path: JSONPath(), message: "config is not valid JSON: \(error)")
        }
        do {
            return try JSONValueDecoder().decode(C.self, from: value)
        } catch {
            throw ProbeConfigError(path: error.path, message: error.message)
        }
    }
}

/// Type-erased construction of a probe from config text.
protocol ProbeFactory {
    static func make(configJSON: String) throws -> ProbeBox
}

enum ProbeFactoryFor<P: Probe>: ProbeFactory {
    static func make(configJSON: String) throws -> ProbeBox {
        let config = try ProbeExport.decodeConfig(P.Config.self, from: configJSON)
        return ProbeBox(probe: try P(config: config))
    }
}

/// What the instance pointer the host holds, and hands back at every call, points to. One class
/// for every probe type, so a call reads it back as what it is: a generic box read back through
/// `as? any ProbeInstance` looked its conformance up at every call (across every loaded image,
/// the first time).
final class ProbeBox {
    let probe: any Probe
    init(probe: any Probe) { self.probe = probe }
}

/// Copies a Swift string into a fixed C char array, truncated on a UTF-8 boundary, NUL-ended.
func copyCString<T>(_ text: String, into field: inout T) {
    withUnsafeMutableBytes(of: &field) { buffer in
        guard buffer.count > 0 else { return }
        // Whole scalars only, so a multi-byte character is never cut in half.
        var bytes: [UInt8] = []
        for scalar in text.unicodeScalars {
            let encoded = Array(String(scalar).utf8)
            if bytes.count + encoded.count > buffer.count - 1 { break }
            bytes += encoded
        }
        buffer.copyBytes(from: bytes)
        buffer[bytes.count] = 0
    }
}

func report(_ error: any Error, into out: UnsafeMutablePointer<pw_error>?) {
    guard let out else { return }
    switch error {
    case let e as ProbeConfigError:
        copyCString(e.path.isEmpty ? "" : e.path.description, into: &out.pointee.path)
        copyCString(e.message, into: &out.pointee.message)
    case let e as JSONPathError:
        report(ProbeConfigError(path: e.path, message: e.message), into: out)
    case let e as ProbeSampleError:
        copyCString("", into: &out.pointee.path)
        copyCString(e.message, into: &out.pointee.message)
    default:
        copyCString("", into: &out.pointee.path)
        copyCString("\(error)", into: &out.pointee.message)
    }
}

private func instance(_ raw: UnsafeMutableRawPointer?) -> ProbeBox? {
    guard let raw else { return nil }
    return Unmanaged<ProbeBox>.fromOpaque(raw).takeUnretainedValue()
}

typealias CreateFunction =
    @convention(c) (
        UnsafePointer<CChar>?, Int, UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafeMutablePointer<pw_error>?
    ) -> Int32

/// One `create` per registration slot (see ProbeExport). A plug-in library registers one type;
/// a test bundle that links every bundled probe and the tests' own registers each of them, so
/// the slots are more than a library needs.
private let createTrampolines: [CreateFunction] = [
    { create(slot: 0, $0, $1, $2, $3) }, { create(slot: 1, $0, $1, $2, $3) },
    { create(slot: 2, $0, $1, $2, $3) }, { create(slot: 3, $0, $1, $2, $3) },
    { create(slot: 4, $0, $1, $2, $3) }, { create(slot: 5, $0, $1, $2, $3) },
    { create(slot: 6, $0, $1, $2, $3) }, { create(slot: 7, $0, $1, $2, $3) },
    { create(slot: 8, $0, $1, $2, $3) }, { create(slot: 9, $0, $1, $2, $3) },
    { create(slot: 10, $0, $1, $2, $3) }, { create(slot: 11, $0, $1, $2, $3) },
    { create(slot: 12, $0, $1, $2, $3) }, { create(slot: 13, $0, $1, $2, $3) },
    { create(slot: 14, $0, $1, $2, $3) }, { create(slot: 15, $0, $1, $2, $3) },
    { create(slot: 16, $0, $1, $2, $3) }, { create(slot: 17, $0, $1, $2, $3) },
    { create(slot: 18, $0, $1, $2, $3) }, { create(slot: 19, $0, $1, $2, $3) },
    { create(slot: 20, $0, $1, $2, $3) }, { create(slot: 21, $0, $1, $2, $3) },
    { create(slot: 22, $0, $1, $2, $3) }, { create(slot: 23, $0, $1, $2, $3) },
    { create(slot: 24, $0, $1, $2, $3) }, { create(slot: 25, $0, $1, $2, $3) },
    { create(slot: 26, $0, $1, $2, $3) }, { create(slot: 27, $0, $1, $2, $3) },
    { create(slot: 28, $0, $1, $2, $3) }, { create(slot: 29, $0, $1, $2, $3) },
    { create(slot: 30, $0, $1, $2, $3) }, { create(slot: 31, $0, $1, $2, $3) },
]

private func create(
    slot: Int, _ json: UnsafePointer<CChar>?, _ length: Int, _ out: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ errorOut: UnsafeMutablePointer<pw_error>?
) -> Int32 {
    guard let out else { return PW_ERR }
    guard let type = ProbeExport.registeredType(slot: slot) else {
        report(ProbeSampleError("plug-in has no registered probe type"), into: errorOut)
        return PW_ERR
    }
    let text: String
    if let json {
        text = String(decoding: UnsafeRawBufferPointer(start: json, count: length), as: UTF8.self)
    } else {
        text = "{}"
    }
    do {
        let made = try Deadline.binding(from: errorOut) { try type.make(configJSON: text) }
        out.pointee = Unmanaged.passRetained(made).toOpaque()
        return PW_OK
    } catch {
        report(error, into: errorOut)
        return PW_ERR
    }
}

private let cSample:
    @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<pw_emitter>?, UnsafeMutablePointer<pw_error>?) -> Int32 = {
        raw, emitter, error in call(raw, emitter, error) { try $0.probe.sample(into: $1) }
    }

private let cEventFD: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { raw in
    instance(raw)?.probe.eventFileDescriptor ?? -1
}

private let cHandleEvent:
    @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<pw_emitter>?, UnsafeMutablePointer<pw_error>?) -> Int32 = {
        raw, emitter, error in call(raw, emitter, error) { try $0.probe.handleEvent(into: $1) }
    }

/// One call of the host's into the probe `raw` (`sample`, `handle_event`): within the deadline
/// the host set, a thrown error written to `error` for the host to read.
private func call(
    _ raw: UnsafeMutableRawPointer?, _ emitter: UnsafePointer<pw_emitter>?, _ error: UnsafeMutablePointer<pw_error>?,
    _ body: (ProbeBox, Emitter) throws -> Void
) -> Int32 {
    guard let probe = instance(raw), let emitter else { return PW_ERR }
    do {
        try Deadline.binding(from: error) { try body(probe, Emitter(raw: emitter)) }
        return PW_OK
    } catch let failure {
        report(failure, into: error)
        return PW_ERR
    }
}

private let cDestroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { raw in
    guard let raw else { return }
    Unmanaged<ProbeBox>.fromOpaque(raw).release()
}
