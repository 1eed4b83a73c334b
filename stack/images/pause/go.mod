module kpm.local/stack/images/pause

go 1.26.0
