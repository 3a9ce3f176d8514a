module gogoroutines

go 1.19
