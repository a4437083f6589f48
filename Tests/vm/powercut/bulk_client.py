#!/usr/bin/env python3
"""One gateway client: posts each batch of a JSON file ([[doc, …], …]) to
_bulk_docs and marks the dm-log-writes log after the 201 for each `ok` entry
(gw:<id>:<rev>). Usage: bulk_client.py DB_URL TOKEN BATCHES.json"""
import json
import subprocess
import sys
import urllib.request

url, token, batches = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
acked = 0
for docs in batches:
    request = urllib.request.Request(url + "/_bulk_docs", data=json.dumps({"docs": docs}).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=120) as response:
        assert response.status == 201, response.status
        rows = json.load(response)
    for row in rows:
        if row.get("ok"):
            subprocess.run(["dmsetup", "message", "pclog", "0", "mark", f"gw:{row['id']}:{row['rev']}"], check=True)
            acked += 1
print(f"bulk_client: {acked} documents acknowledged in {len(batches)} batches", file=sys.stderr)
