import CPathwatchProbe

/// A plug-in library that passed vetting and is loaded. Libraries are never unloaded: code of a
/// plug-in may still be on a thread's stack (a hung sample), and dlclose under it would crash.
public final class LoadedPlugin: @unchecked Sendable {
    public let path: String
    public let name: String
    public let version: String
    public let summary: String
    public let abiVersion: UInt32
    public let flags: UInt64
    /// Immutable descriptor owned by the library, valid while it stays loaded (forever).
    let descriptor: UnsafePointer<pw_probe_descriptor>

    init(path: String, descriptor: UnsafePointer<pw_probe_descriptor>) {
        self.path = path
        self.descriptor = descriptor
        let d = descriptor.pointee
        self.name = String(cString: d.name)
        self.version = d.version.map { String(cString: $0) } ?? "unknown"
        self.summary = d.description.map { String(cString: $0) } ?? ""
        self.abiVersion = d.abi_version
        self.flags = d.flags
    }

    public var needsNetwork: Bool { flags & UInt64(PW_PROBE_FLAG_NEEDS_NETWORK) != 0 }
    public var samplesOnPathChange: Bool { flags & UInt64(PW_PROBE_FLAG_SAMPLE_ON_PATH_CHANGE) != 0 }
    public var isEventDriven: Bool { descriptor.pointee.event_fd != nil && descriptor.pointee.handle_event != nil }
}

/// A file in a plug-in folder that was not loaded, and why.
public struct RefusedPlugin: Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}
