module gotcpecho

go 1.19
