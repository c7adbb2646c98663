import CPathwatchProbe

/// A plug-in library that passed vetting, and what its descriptor says. Read either in this
/// process (the library is then loaded here, for inline probes) or by a child that loaded it
/// (process isolation: this process never maps the library).
/// Libraries are never unloaded: code of a plug-in may still be on a thread's stack (a hung
/// sample), and dlclose under it would crash.
public final class LoadedPlugin: @unchecked Sendable {
    public let path: String
    public let name: String
    public let version: String
    public let summary: String
    public let abiVersion: UInt32
    public let flags: UInt64
    public let isEventDriven: Bool
    /// Immutable descriptor owned by the library, valid while it stays loaded (forever); nil
    /// when the descriptor was read by a child.
    let descriptor: UnsafePointer<pw_probe_descriptor>?

    init(path: String, descriptor: UnsafePointer<pw_probe_descriptor>) {
        self.path = path
        self.descriptor = descriptor
        let d = descriptor.pointee
        self.name = String(cString: d.name)
        self.version = d.version.map { String(cString: $0) } ?? "unknown"
        self.summary = d.description.map { String(cString: $0) } ?? ""
        self.abiVersion = d.abi_version
        self.flags = d.flags
        self.isEventDriven = d.event_fd != nil && d.handle_event != nil
    }

    /// What a child read from the descriptor.
    init(path: String, name: String, version: String, summary: String, abiVersion: UInt32, flags: UInt64, eventDriven: Bool) {
        self.path = path
        self.name = name
        self.version = version
        self.summary = summary
        self.abiVersion = abiVersion
        self.flags = flags
        self.isEventDriven = eventDriven
        self.descriptor = nil
    }

    public var needsNetwork: Bool { flags & UInt64(PW_PROBE_FLAG_NEEDS_NETWORK) != 0 }
    public var samplesOnPathChange: Bool { flags & UInt64(PW_PROBE_FLAG_SAMPLE_ON_PATH_CHANGE) != 0 }
}

/// A file in a plug-in folder that was not loaded, and why.
public struct RefusedPlugin: Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}
