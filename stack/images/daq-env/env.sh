# The DAQ image's stand-in for a DUNE DAQ release's environment script: drunc's boot requests
# begin with `source <release>/env.sh`, so they run unchanged on the real node.
export DUNEDAQ_RELEASE=kpm-standin
export DUNEDAQ_DB_PATH=/opt/dunedaq/config
