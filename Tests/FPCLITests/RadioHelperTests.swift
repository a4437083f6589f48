@testable import FPCLI
import FPTestSupport
import Foundation
import Testing

/// What exit 81 advises where the Debian package's scanning copy
/// (/usr/lib/fprint/fprint-radio) is, or is not, installed, on real files
/// with the modes postinst gives it (0755 when off, 0750 for the group when on).
@Suite struct RadioHelperTests {
    @Test func withoutThePackageTheAdviceIsLeftToSetcap() throws {
        let folder = try makeTemporaryFolder("radio-helper")
        #expect(RadioHelper.permissionAdvice(helper: folder.appendingPathComponent("fprint-radio").path, user: "bob") == nil)
    }

    @Test func aCopyWithoutCapabilitiesSaysScanningWithoutRootIsOff() throws {
        let helper = try makeTemporaryFolder("radio-helper").appendingPathComponent("fprint-radio").path
        #expect(FileManager.default.createFile(atPath: helper, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755]))
        let advice = try #require(RadioHelper.permissionAdvice(helper: helper, user: "bob"))
        #expect(advice.contains("sudo dpkg-reconfigure fprint"), "\(advice)")
    }

    @Test func aCopyForTheGroupOnlyNamesTheGroupToJoin() throws {
        let helper = try makeTemporaryFolder("radio-helper").appendingPathComponent("fprint-radio").path
        #expect(FileManager.default.createFile(atPath: helper, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o750]))
        #expect(RadioHelper.isGroupOnly(helper))
        let advice = try #require(RadioHelper.permissionAdvice(helper: helper, user: "nobody-in-fprint"))
        #expect(advice == "members of the fprint group scan without root: `sudo adduser nobody-in-fprint fprint`, then log in again")
    }
}
