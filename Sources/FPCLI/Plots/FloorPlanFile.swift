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

/// A map's floor-plan picture (`maps[].floorPlan`) read for a plot: PNG,
/// JPEG or SVG, from a local file, or fetched beside a remote app config
/// (`fprint gateway` serves its maps' pictures under `/config/`).
enum FloorPlanFile {
    /// Largest picture embedded in a plot (a plan scan is a few MB).
    static let maxBytes = 32 << 20

    /// nil when the map has no picture.
    static func load(map id: String, config: LoadedConfig?) throws -> SVGPlot.FloorPlan? {
        guard let config, let plan = config.appConfig.map(id: id)?.floorPlan else { return nil }
        let (bytes, shown) = try picture(plan.image, map: id, config: config)
        guard let header = ImageHeader(bytes) else {
            throw CommandFailure("map \(id): floor plan \(shown) is not a PNG, JPEG or SVG image", .dataError)
        }
        return SVGPlot.FloorPlan(header: header, bytes: bytes, x: plan.origin.x, y: plan.origin.y,
                                 unitsPerPixel: plan.unitsPerPixel)
    }

    /// The picture's bytes and how to name it: beside a remote config, fetched
    /// (never a file of this machine); else the file, relative to a local config.
    private static func picture(_ image: String, map id: String, config: LoadedConfig) throws -> (bytes: [UInt8], shown: String) {
        if config.baseDirectory == nil, config.location != nil {
            do {
                if let fetched = try Workspace.configLoader(paths: FPPaths()).loadPicture(image, of: config, maxBytes: maxBytes) {
                    return (fetched, image)
                }
            } catch {
                throw CommandFailure("map \(id): floor plan: \(error) (--no-floor-plan leaves it out)", .dataError)
            }
        }
        guard image.hasPrefix("/") || config.baseDirectory != nil else {
            throw CommandFailure("map \(id): floorPlan.image \"\(image)\" has no folder to be read from", .dataError)
        }
        let path = image.hasPrefix("/") ? image : ((config.baseDirectory ?? "") as NSString).appendingPathComponent(image)
        return (try read(path, map: id), path)
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
