#!/usr/bin/env python3
"""Writes hradec-walk.nmea: a 1 Hz NMEA 0183 log of a slow walk starting at
50.2040 N 15.8296 E (UHK campus, Hradec Kralove), as a u-blox-style receiver
emits it (GGA, GSA, GSV, RMC per epoch, valid checksums). Regenerate with
`python3 make-nmea.py > hradec-walk.nmea`; the committed log is the fixture."""
import math

def ck(body):
    c = 0
    for ch in body.encode():
        c ^= ch
    return "$%s*%02X" % (body, c)

def dm(value, lat):
    a = abs(value)
    deg = int(a)
    minutes = (a - deg) * 60
    if lat:
        return "%02d%08.5f" % (deg, minutes), "N" if value >= 0 else "S"
    return "%03d%08.5f" % (deg, minutes), "E" if value >= 0 else "W"

# (prn, elevation, azimuth, snr, used)
sats = [(2, 64, 285, 44, True), (5, 41, 62, 41, True), (12, 27, 133, 38, True), (13, 55, 198, 45, True),
        (15, 12, 305, 30, True), (18, 33, 250, 36, True), (20, 8, 25, 0, False), (25, 47, 96, 40, True),
        (29, 19, 168, 33, True)]
lat0, lon0 = 50.2040, 15.8296
for i in range(40):
    h, m, s = 7, 30, i
    t = "%02d%02d%02d.00" % (h, m, s)
    # about 1 m/s north-east
    lat = lat0 + i * 0.0000064
    lon = lon0 + i * 0.0000100
    la, ns = dm(lat, True)
    lo, ew = dm(lon, False)
    used = [p for p, _, _, _, u in sats if u]
    print(ck("GPGGA,%s,%s,%s,%s,%s,1,%02d,0.9,235.4,M,44.6,M,," % (t, la, ns, lo, ew, len(used))))
    print(ck("GPGSA,A,3,%s,1.6,0.9,1.3" % ",".join(["%02d" % p for p in used] + [""] * (12 - len(used)))))
    for k in range(0, len(sats), 4):
        chunk = sats[k:k + 4]
        fields = ",".join("%02d,%02d,%03d,%s" % (p, e, a, ("%02d" % n) if n else "") for p, e, a, n, _ in chunk)
        print(ck("GPGSV,%d,%d,%02d,%s" % ((len(sats) + 3) // 4, k // 4 + 1, len(sats), fields)))
    print(ck("GPRMC,%s,A,%s,%s,%s,%s,1.94,39.5,221126,4.2,E,A" % (t, la, ns, lo, ew)))
