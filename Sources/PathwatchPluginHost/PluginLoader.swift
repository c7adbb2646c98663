import CFaultReport
import CPathwatchProbe
import Glibc
import PathwatchBase
import PathwatchProbeRules
import PathwatchSinkKit

/// Opens libraries and reads their descriptors, checking the ABI before trusting any field.
package enum PluginLoader {
    package struct Refusal: Error {
        package var reason: String
    }

    /// The smallest descriptor an ABI-1 plug-in may hand over.
    package static let minimumDescriptorSize = DescriptorCheck.minimumSize

    package static func load(_ path: String) -> Result<LoadedPlugin, Refusal> {
        var outcome: Result<LoadedPlugin, Refusal> = .failure(Refusal(reason: "not loaded"))
        load([path]) { _, loaded in outcome = loaded }
        return outcome
    }

    /// Loads each of `paths` and hands `each` its outcome, in order: every library opened and its
    /// entry point called first, then the process's memory map read once and each descriptor
    /// checked against it. The Swift runtime forgets every conformance it has looked up whenever
    /// a library is opened, so a check run between two opens (its dictionaries and sets look up
    /// `Hashable`) paid for the same look-ups again after the next one, and each check read the
    /// map anew. The outcomes are handed over rather than kept in an array: an array of `Result`
    /// looks up `Refusal: Error` at its first use, once before the opens and again after.
    package static func load(_ paths: [String], each: (String, Result<LoadedPlugin, Refusal>) -> Void) {
        var loading = paths.map { Loading(path: $0) }
        for i in loading.indices {
            if let reason = PluginVetting.refusal(forFile: loading[i].path) {
                loading[i].refusal = Refusal(reason: reason)
                continue
            }
            // The library's constructors and its entry point are the plug-in's code: a crash there
            // is named for the file (its name is not known before the descriptor is read).
            switch FaultCallMark.during(
                PW_FAULT_CALL_LOAD, plugin: loading[i].path, probe: nil, { open(loading[i].path) })
            {
            case .failure(let refusal): loading[i].refusal = refusal
            case .success(let handle): loading[i].handle = handle
            }
        }
        for i in loading.indices {
            guard let handle = loading[i].handle else { continue }
            switch FaultCallMark.during(
                PW_FAULT_CALL_LOAD, plugin: loading[i].path, probe: nil, { descriptor(of: handle) })
            {
            case .failure(let refusal): loading[i].refusal = refusal
            case .success(let raw): loading[i].descriptor = raw
            }
        }
        let memory = ReadableMemory.current()
        for library in loading {
            guard let raw = library.descriptor else {
                each(library.path, .failure(library.refusal ?? Refusal(reason: "not loaded")))
                continue
            }
            each(library.path, checked(raw, of: library.path, memory: memory))
        }
    }

    /// The descriptor's checks are the SDK's, so ProbeTester refuses what this refuses.
    private static func checked(_ raw: UnsafePointer<pw_probe_descriptor>, of path: String, memory: ReadableMemory)
        -> Result<LoadedPlugin, Refusal>
    {
        // A switch that returns: bound in place, the check's result was copied through its type's
        // metadata, whose first use looks up `MetricRefusal: Error` across every loaded image.
        switch DescriptorCheck.check(raw, memory: memory) {
        case .failure(let why): return .failure(Refusal(reason: why.description))
        case .success(let described): return .success(LoadedPlugin(path: path, descriptor: raw, described: described))
        }
    }

    /// A library on its way through `load`: opened, then described, or why it stopped.
    private struct Loading {
        var path: String
        var handle: UnsafeMutableRawPointer?
        var descriptor: UnsafePointer<pw_probe_descriptor>?
        var refusal: Refusal?
    }

    /// Opens the library, or says why it cannot be.
    private static func open(_ path: String) -> Result<UnsafeMutableRawPointer, Refusal> {
        _ = dlerror()
        // RTLD_LOCAL: a plug-in's symbols never satisfy another plug-in's references.
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? "unknown error"
            return .failure(Refusal(reason: "not a loadable library: \(why)"))
        }
        return .success(handle)
    }

    /// Calls the opened library's entry point: its descriptor, or why there is none.
    private static func descriptor(of handle: UnsafeMutableRawPointer)
        -> Result<UnsafePointer<pw_probe_descriptor>, Refusal>
    {
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
