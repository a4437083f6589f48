import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import Foundation

/// `--no-floor-plan` of the plots that draw a map.
struct FloorPlanOptions: ParsableArguments {
    @Flag(help: "Leave out the map's floor-plan picture (maps[].floorPlan of the app config).") var noFloorPlan = false

    /// nil when the map has no picture or --no-floor-plan was given.
    func plan(map id: String, config: LoadedConfig?) throws -> SVGPlot.FloorPlan? {
        noFloorPlan ? nil : try FloorPlanFile.load(map: id, config: config)
    }
}

/// A map's floor-plan picture (`maps[].floorPlan`) read for a plot: PNG or
/// JPEG, from a local file.
enum FloorPlanFile {
    /// Largest picture embedded in a plot (a plan scan is a few MB).
    static let maxBytes = 32 << 20

    /// nil when the map has no picture.
    static func load(map id: String, config: LoadedConfig?) throws -> SVGPlot.FloorPlan? {
        guard let config, let plan = config.appConfig.map(id: id)?.floorPlan else { return nil }
        let path: String
        if plan.image.hasPrefix("/") {
            path = plan.image
        } else if let base = config.baseDirectory {
            path = (base as NSString).appendingPathComponent(plan.image)
        } else {
            throw CommandFailure("map \(id): floorPlan.image \"\(plan.image)\" is relative to a remote app config; "
                + "floor-plan pictures are read from local files (give an absolute path, or --no-floor-plan)", .dataError)
        }
        let bytes = try read(path, map: id)
        guard let header = ImageHeader(bytes) else {
            throw CommandFailure("map \(id): floor plan \(path) is not a PNG, JPEG or SVG image", .dataError)
        }
        return SVGPlot.FloorPlan(header: header, bytes: bytes, x: plan.origin.x, y: plan.origin.y,
                                 unitsPerPixel: plan.unitsPerPixel)
    }

    private static func read(_ path: String, map id: String) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let missing = !FileManager.default.fileExists(atPath: path)
            throw CommandFailure("map \(id): floor plan \(path): \(missing ? "no such file" : "cannot be read")",
                                 missing ? .notFound : .ioError)
        }
        defer { try? handle.close() }
        // One byte past the limit tells a picture that is too large from one that fits.
        guard let data = try? handle.read(upToCount: maxBytes + 1) else {
            throw CommandFailure("map \(id): floor plan \(path) cannot be read", .ioError)
        }
        guard data.count <= maxBytes else {
            throw CommandFailure("map \(id): floor plan \(path) is over \(maxBytes >> 20) MiB; give a smaller picture", .dataError)
        }
        return Array(data)
    }
}
