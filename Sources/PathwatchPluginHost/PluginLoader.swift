import CFaultReport
import CPathwatchProbe
import Glibc
import PathwatchBase
import PathwatchProbeRules
import PathwatchSinkKit

/// Opens one library and reads its descriptor, checking the ABI before trusting any field.
package enum PluginLoader {
    package struct Refusal: Error {
        package var reason: String
    }

    /// The smallest descriptor an ABI-1 plug-in may hand over.
    package static let minimumDescriptorSize = DescriptorCheck.minimumSize

    package static func load(_ path: String) -> Result<LoadedPlugin, Refusal> {
        if let reason = PluginVetting.refusal(forFile: path) { return .failure(Refusal(reason: reason)) }
        // The library's constructors and its entry point are the plug-in's code: a crash there is
        // named for the file (its name is not known before the descriptor is read).
        let raw: UnsafePointer<pw_probe_descriptor>
        switch FaultCallMark.during(PW_FAULT_CALL_LOAD, plugin: path, probe: nil, { entryDescriptor(path) }) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let descriptor): raw = descriptor
        }
        // The descriptor's checks are the SDK's, so ProbeTester refuses what this refuses.
        switch DescriptorCheck.check(raw) {
        case .failure(let why): return .failure(Refusal(reason: why.description))
        case .success(let described): return .success(LoadedPlugin(path: path, descriptor: raw, described: described))
        }
    }

    /// Opens the library and calls its entry point: its descriptor, or why there is none.
    private static func entryDescriptor(_ path: String) -> Result<UnsafePointer<pw_probe_descriptor>, Refusal> {
        _ = dlerror()
        // RTLD_LOCAL: a plug-in's symbols never satisfy another plug-in's references.
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? "unknown error"
            return .failure(Refusal(reason: "not a loadable library: \(why)"))
        }
        guard let symbol = dlsym(handle, PW_PROBE_ENTRY_SYMBOL) else {
            return .failure(Refusal(reason: "not a Pathwatch plug-in: no \(PW_PROBE_ENTRY_SYMBOL) symbol"))
        }
        let entry = unsafeBitCast(symbol, to: pw_probe_entry_fn.self)
        guard let raw = entry() else {
            return .failure(Refusal(reason: "\(PW_PROBE_ENTRY_SYMBOL) returned no descriptor"))
        }
        return .success(raw)
    }
}
