import CPathwatchProbe
import PathwatchProbeKit

/// What a plug-in's descriptor says, read and checked as the agent reads it: the ABI version
/// and size first, then the name, the calls, the flags, and the metric declarations. The agent
/// refuses a plug-in for any of these, and `ProbeTester` refuses it with the same words.
public struct DescribedPlugin: Sendable {
    public var name: String
    public var version: String
    public var summary: String
    public var abiVersion: UInt32
    public var flags: UInt64
    public var isEventDriven: Bool
    public var metrics: MetricCatalog

    public init(
        name: String, version: String, summary: String, abiVersion: UInt32, flags: UInt64, isEventDriven: Bool,
        metrics: MetricCatalog
    ) {
        self.name = name
        self.version = version
        self.summary = summary
        self.abiVersion = abiVersion
        self.flags = flags
        self.isEventDriven = isEventDriven
        self.metrics = metrics
    }
}

public enum DescriptorCheck {
    /// The smallest descriptor of ABI 1: up to and with `destroy`. The metric declarations grew
    /// it at its end, so a plug-in built before them says this size and declares nothing.
    public static let minimumSize = UInt32(MemoryLayout<pw_probe_descriptor>.offset(of: \.metrics)!)
    private static let sizeWithMetrics = UInt32(
        MemoryLayout<pw_probe_descriptor>.offset(of: \.metric_count)! + MemoryLayout<Int>.size)

    /// Plug-in names the agent's own metric families begin with (`pathwatch_probe_duration_seconds`):
    /// a plug-in named so would expose its metrics among them.
    public static let reservedNames: Set<String> = ["agent", "build", "check", "path", "probe", "sink"]

    /// The longest plug-in name and version a descriptor may give, in bytes.
    public static let maximumNameBytes = 255
    /// The longest description, as long as a check's message.
    public static let maximumDescriptionBytes = ObservationLimits.messageBytes

    /// Reads the descriptor the entry point returned, or says why the plug-in is refused. Every
    /// pointer in it is checked against `memory` (the process's map, read now unless given)
    /// before it is followed: a bad one is refused by the field's name, never read.
    public static func check(_ raw: UnsafePointer<pw_probe_descriptor>, memory: ReadableMemory = .current()) -> Result<
        DescribedPlugin, MetricRefusal
    > {
        func refuse(_ text: String) -> Result<DescribedPlugin, MetricRefusal> { .failure(MetricRefusal(text)) }
        // Read the two leading fields only, then decide whether the rest may be read.
        let header = UnsafeRawPointer(raw)
        guard memory.canRead(header, count: 8) else { return refuse("descriptor points outside the library's memory") }
        let abi = header.load(as: UInt32.self)
        let size = header.load(fromByteOffset: 4, as: UInt32.self)
        guard abi == PW_PROBE_ABI_VERSION else {
            return refuse("plug-in ABI version \(abi), but this agent speaks version \(PW_PROBE_ABI_VERSION)")
        }
        guard size >= minimumSize else {
            return refuse(
                "descriptor is \(size) bytes, smaller than the \(minimumSize) bytes of ABI \(PW_PROBE_ABI_VERSION)")
        }
        // Only the bytes the plug-in says it has are read: a descriptor of the size before the
        // metric declarations, at the end of its memory, has nothing after it to read.
        let known = min(Int(size), MemoryLayout<pw_probe_descriptor>.size)
        guard memory.canRead(header, count: known) else {
            return refuse("descriptor says it is \(size) bytes, more than the library's memory holds there")
        }
        var d = pw_probe_descriptor()
        withUnsafeMutableBytes(of: &d) { $0.copyMemory(from: UnsafeRawBufferPointer(start: header, count: known)) }

        let nameText: String
        switch text(d.name, "descriptor.name", limit: maximumNameBytes, memory: memory) {
        case .failure(let why): return .failure(why)
        case .success(nil), .success(""): return refuse("descriptor has a null or empty name")
        case .success(let value?): nameText = value
        }
        guard nameText.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_" || $0 == "-") }) else {
            return refuse("plug-in name \"\(nameText.prefix(64))\" is not of [a-z0-9_-]")
        }
        guard !reservedNames.contains(String(nameText.map { $0 == "-" ? "_" : $0 })) else {
            return refuse(
                "plug-in name \"\(nameText)\" is reserved: the agent's own metrics are named pathwatch_\(nameText)_…")
        }
        let version: String?
        let summary: String?
        switch text(d.version, "descriptor.version", limit: maximumNameBytes, memory: memory) {
        case .failure(let why): return .failure(why)
        case .success(let value): version = value
        }
        switch text(d.description, "descriptor.description", limit: maximumDescriptionBytes, memory: memory) {
        case .failure(let why): return .failure(why)
        case .success(let value): summary = value
        }
        guard d.create != nil, d.sample != nil, d.destroy != nil else {
            return refuse("descriptor lacks create, sample or destroy")
        }
        if (d.event_fd == nil) != (d.handle_event == nil) {
            return refuse("descriptor has only one of event_fd and handle_event")
        }
        // A call into memory that is not code would fault in the process that makes it.
        let calls: [(String, UnsafeRawPointer?)] = [
            ("create", unsafeBitCast(d.create, to: UnsafeRawPointer?.self)),
            ("sample", unsafeBitCast(d.sample, to: UnsafeRawPointer?.self)),
            ("destroy", unsafeBitCast(d.destroy, to: UnsafeRawPointer?.self)),
            ("event_fd", unsafeBitCast(d.event_fd, to: UnsafeRawPointer?.self)),
            ("handle_event", unsafeBitCast(d.handle_event, to: UnsafeRawPointer?.self)),
        ]
        for (field, pointer) in calls where pointer != nil && !memory.canCall(pointer) {
            return refuse("descriptor.\(field) points outside the library's code")
        }
        // Declared event-driven without the calls that make it so, it would load as a polled
        // probe and never report a change between samples.
        if d.flags & UInt64(PW_PROBE_FLAG_EVENT_DRIVEN) != 0, d.event_fd == nil {
            return refuse("descriptor declares PW_PROBE_FLAG_EVENT_DRIVEN but has no event_fd and handle_event")
        }
        var catalog = MetricCatalog.undeclared
        if size >= sizeWithMetrics {
            switch declarations(d.metrics, count: d.metric_count, memory: memory).flatMap(MetricCatalog.checked) {
            case .failure(let why): return refuse("metric declarations: \(why)")
            case .success(let checked): catalog = checked
            }
        }
        return .success(
            DescribedPlugin(
                name: nameText, version: version ?? "unknown", summary: summary ?? "", abiVersion: abi, flags: d.flags,
                isEventDriven: d.event_fd != nil && d.handle_event != nil, metrics: catalog))
    }

    /// A string of the descriptor's, nil when its pointer is NULL; a refusal naming `field` when
    /// it lies outside readable memory, has no end within it, is longer than `limit` or is not UTF-8.
    static func text(_ pointer: UnsafePointer<CChar>?, _ field: String, limit: Int, memory: ReadableMemory)
        -> Result<String?, MetricRefusal>
    {
        guard let pointer else { return .success(nil) }
        switch memory.text(pointer, limit: limit) {
        case .text(let text): return .success(text.string)
        case .outside: return .failure(MetricRefusal("\(field) points outside the library's memory"))
        case .unterminated:
            return .failure(MetricRefusal("\(field) has no terminating NUL within the library's memory"))
        case .tooLong: return .failure(MetricRefusal("\(field) is longer than \(limit) bytes"))
        case .notUTF8: return .failure(MetricRefusal("\(field) is not UTF-8"))
        }
    }

    /// The most declarations one plug-in may make: more than an observation may carry is a
    /// table that is not one.
    public static let maximumDeclarations = ObservationLimits.itemsPerObservation * 4

    /// The C table as Swift values, walked with the plug-in's own stride.
    static func declarations(_ table: UnsafePointer<pw_metric_info>?, count: Int, memory: ReadableMemory) -> Result<
        [MetricDeclaration], MetricRefusal
    > {
        // size_t: SIZE_MAX arrives as -1, which is no smaller for it.
        guard UInt(bitPattern: count) <= maximumDeclarations else {
            return .failure(
                MetricRefusal(
                    "descriptor.metric_count \(UInt(bitPattern: count)) is more than \(maximumDeclarations)"))
        }
        let array: PluginArray<pw_metric_info>
        switch PluginArray<pw_metric_info>.open(table, count: count, memory: memory) {
        case .refused(let why): return .failure(MetricRefusal("descriptor.metrics: \(why)"))
        case .accepted(let opened): array = opened
        }
        var list: [MetricDeclaration] = []
        for i in 0..<array.count {
            guard let info = array.element(i) else {
                return .failure(
                    MetricRefusal("metrics[\(i)]: struct_size differs from the first element's \(array.stride)"))
            }
            guard let namePointer = info.name else { return .failure(MetricRefusal("metrics[\(i)]: name is NULL")) }
            let name: PluginText
            switch memory.text(namePointer, limit: MetricNameRule.maximumBytes * 4) {
            case .text(let text): name = text
            case .outside:
                return .failure(MetricRefusal("descriptor.metrics[\(i)].name points outside the library's memory"))
            case .unterminated:
                return .failure(
                    MetricRefusal("descriptor.metrics[\(i)].name has no terminating NUL within the library's memory"))
            case .tooLong, .notUTF8:
                return .failure(
                    MetricRefusal(
                        "metrics[\(i)]: name is NULL, not UTF-8 or longer than \(MetricNameRule.maximumBytes) bytes"))
            }
            guard let kind = MetricDeclaration.Kind(rawValue: info.kind) else {
                return .failure(
                    MetricRefusal(
                        "metrics[\(i)] (\(name.string)): kind \(info.kind) is not PW_METRIC_GAUGE (0) or PW_METRIC_COUNTER (1)"
                    ))
            }
            guard let plot = MetricDeclaration.Plot(rawValue: info.plot) else {
                return .failure(
                    MetricRefusal(
                        "metrics[\(i)] (\(name.string)): plot \(info.plot) is not one of PW_PLOT_NONE (0) to PW_PLOT_USAGE (3)"
                    ))
            }
            func text(_ pointer: UnsafePointer<CChar>?, _ field: String) -> Result<String?, MetricRefusal> {
                guard let pointer else { return .success(nil) }
                switch memory.text(pointer, limit: ObservationLimits.messageBytes) {
                case .text(let checked): return .success(checked.string)
                case .outside:
                    return .failure(
                        MetricRefusal("descriptor.metrics[\(i)].\(field) points outside the library's memory"))
                case .unterminated:
                    return .failure(
                        MetricRefusal(
                            "descriptor.metrics[\(i)].\(field) has no terminating NUL within the library's memory"))
                case .tooLong, .notUTF8:
                    return .failure(
                        MetricRefusal(
                            "metrics[\(i)] (\(name.string)): \(field) is not UTF-8 of at most \(ObservationLimits.messageBytes) bytes"
                        ))
                }
            }
            let unit: String?
            let help: String?
            switch text(info.unit, "unit") {
            case .failure(let why): return .failure(why)
            case .success(let value): unit = value
            }
            switch text(info.help, "help") {
            case .failure(let why): return .failure(why)
            case .success(let value): help = value
            }
            list.append(MetricDeclaration(name: name.string, kind: kind, unit: unit, help: help ?? "", plot: plot))
        }
        return .success(list)
    }
}
