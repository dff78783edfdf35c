#!/bin/bash
# cap.sh SHARE PID...: puts every PID (all its threads) into the cgroup writespin-cap limited to SHARE of one CPU by
# a CFS quota over a 10 ms period (cgroup v1 cpu controller, or v2 cpu.max). SHARE=off moves them back out.
# With the server capped below what the load generator can drive, req/s measures the server, not the client.
SHARE=$1; shift
if [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
  ROOTG=/sys/fs/cgroup/cpu; G=$ROOTG/writespin-cap; mkdir -p $G
  echo 10000 > $G/cpu.cfs_period_us
  if [ "$SHARE" = off ]; then echo -1 > $G/cpu.cfs_quota_us; else
    python3 -c "print(int(float('$SHARE') * 10000))" > $G/cpu.cfs_quota_us; fi
else
  ROOTG=/sys/fs/cgroup; G=$ROOTG/writespin-cap; mkdir -p $G
  if [ "$SHARE" = off ]; then echo "max 10000" > $G/cpu.max; else
    echo "$(python3 -c "print(int(float('$SHARE') * 10000))") 10000" > $G/cpu.max; fi
fi
for pid in "$@"; do echo $pid > "$([ "$SHARE" = off ] && echo $ROOTG || echo $G)"/cgroup.procs; done
