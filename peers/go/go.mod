module peers/gohttp

go 1.19
