# Sourced by guest.sh (while the workloads run) and read by crashstates.py
# (at each crash state): where fprint keeps everything on the logged filesystem.
M=${M:-/run/powercut-fs}
export HOME=$M/home XDG_CONFIG_HOME=$M/home/config XDG_DATA_HOME=$M/home/data
export XDG_STATE_HOME=$M/home/state XDG_CACHE_HOME=$M/home/cache
export FPRINT_DB=$M/db/fprint.sqlite
GWDB=$M/gw/gateway.sqlite SECRET=$M/gw/secret USERS=$M/gw/users
