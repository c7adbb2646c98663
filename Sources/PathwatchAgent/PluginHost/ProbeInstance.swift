import CPathwatchProbe
import PathwatchProbeKit

/// What one call into a plug-in produced.
public struct CallResult: Sendable {
    public var observations: [Observation]
    /// The plug-in's own error, when it returned PW_ERR.
    public var error: String?
    /// Observations the host refused as malformed, and why.
    public var problems: [String]
}

/// One created instance of a plug-in, configured for one probe. Calls into it are not
/// thread-safe by contract: the caller (a ProbeRunner) serialises them.
public final class ProbeInstance: @unchecked Sendable {
    public let plugin: LoadedPlugin
    private let handle: UnsafeMutableRawPointer?
    private var destroyed = false

    /// Creates an instance from the probe's config; a refusal comes back as a path relative to
    /// that config (e.g. "targets[0].url") with the plug-in's message.
    public static func create(plugin: LoadedPlugin, configJSON: String) -> Result<ProbeInstance, JSONPathError> {
        var error = pw_error()
        error.struct_size = MemoryLayout<pw_error>.size
        var instance: UnsafeMutableRawPointer? = nil
        let bytes = Array(configJSON.utf8) + [0]
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { text in
                plugin.descriptor.pointee.create(text, buffer.count - 1, &instance, &error)
            }
        }
        if status != PW_OK {
            let (path, message) = Self.text(of: &error)
            return .failure(JSONPathError(
                path: JSONPath(parsing: path),
                message: message.isEmpty ? "plug-in \(plugin.name) refused its configuration without saying why" : message))
        }
        return .success(ProbeInstance(plugin: plugin, handle: instance))
    }

    private init(plugin: LoadedPlugin, handle: UnsafeMutableRawPointer?) {
        self.plugin = plugin
        self.handle = handle
    }

    /// Takes one sample. Blocks for as long as the plug-in does.
    public func sample() -> CallResult {
        call { handle, emitter, error in plugin.descriptor.pointee.sample(handle, emitter, error) }
    }

    /// The descriptor to watch, for event-driven plug-ins; nil otherwise.
    public func eventFileDescriptor() -> Int32? {
        guard let eventFD = plugin.descriptor.pointee.event_fd else { return nil }
        let fd = eventFD(handle)
        return fd >= 0 ? fd : nil
    }

    /// Serves readiness of the event descriptor.
    public func handleEvent() -> CallResult {
        guard let handleEvent = plugin.descriptor.pointee.handle_event else {
            return CallResult(observations: [], error: nil, problems: [])
        }
        return call { handle, emitter, error in handleEvent(handle, emitter, error) }
    }

    public func destroy() {
        guard !destroyed else { return }
        destroyed = true
        plugin.descriptor.pointee.destroy(handle)
    }

    private func call(_ body: (UnsafeMutableRawPointer?, UnsafePointer<pw_emitter>, UnsafeMutablePointer<pw_error>) -> Int32) -> CallResult {
        let collector = ObservationCollector()
        var error = pw_error()
        error.struct_size = MemoryLayout<pw_error>.size
        let status = EmitterSlots.withEmitter(for: collector) { emitter in body(handle, emitter, &error) }
        var failure: String? = nil
        if status != PW_OK {
            let message = Self.text(of: &error).message
            failure = message.isEmpty ? "plug-in \(plugin.name) reported a failed sample without saying why" : message
        }
        return CallResult(observations: collector.observations, error: failure, problems: collector.problems)
    }

    /// Reads the two NUL-terminated buffers of a pw_error, forcing termination first so a
    /// plug-in that filled them to the brim cannot make the host read past them.
    static func text(of error: inout pw_error) -> (path: String, message: String) {
        func read<T>(_ field: inout T) -> String {
            withUnsafeMutableBytes(of: &field) { raw in
                raw[raw.count - 1] = 0
                return String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
        }
        return (read(&error.path), read(&error.message))
    }
}
